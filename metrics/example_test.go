package metrics_test

import (
	"context"
	"database/sql"
	"log"
	"os"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/shardid/shardid/metrics"
	"github.com/shardid/shardid/segment"
)

// A segment client's collector: its OnEvent goes into the client's
// settings (the loads' times), Watch gives it the client (the counters it
// reads at each scrape). The others are wired the same way.
func Example() {
	ctx := context.Background()
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	seg := metrics.NewSegments("orders")
	c, err := segment.New(ctx, db, segment.Settings{Tag: "orders", OnEvent: seg.OnEvent})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	seg.Watch(c)
	prometheus.MustRegister(seg)
}
