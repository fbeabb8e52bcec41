package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shardid/shardid/pgfunc"
	"github.com/shardid/shardid/pgfunc/citus"
	"github.com/shardid/shardid/pgfunc/migrate"
)

// CitusSchema is the logical shard's schema RunCitus installs: shard
// 8191, so that a real shard's schema is left alone.
const CitusSchema = "shardid_bench_citus"

// CitusRow is one entry node and protocol of a Citus run: single-row
// INSERTs keyed by DEFAULT next_id() against bigserial, entering there.
type CitusRow struct {
	// Entry is "coordinator" or "worker"; Protocol "simple" or "extended".
	Entry    string `json:"entry"`
	Protocol string `json:"protocol"`
	// NextID and Bigserial are the median rows per second of the rounds.
	NextID    float64 `json:"next_id_rows_per_s"`
	Bigserial float64 `json:"bigserial_rows_per_s"`
	// Latency is the median over rounds of bigserial's rows/s over
	// next_id()'s in the same round: next_id()'s time per INSERT as a
	// multiple of bigserial's.
	Latency float64 `json:"latency_x_bigserial"`
}

// CitusReport is what RunCitus measured.
type CitusReport struct {
	Settings Settings   `json:"settings"`
	Rows     []CitusRow `json:"rows"`
	// Repeats is how many IDs of next_id()'s table were there twice.
	Repeats int64 `json:"repeats"`
}

// ErrNotCitus is returned by RunCitus on a server that is not a Citus
// coordinator.
var ErrNotCitus = errors.New("not a Citus coordinator")

// RunCitus measures, on the Citus cluster whose coordinator dsn names,
// single-row INSERTs keyed by DEFAULT next_id() of a distributed schema
// against bigserial, entering at the coordinator and at the first worker,
// with the simple and the extended protocol: s.Clients connections, each
// s.Rows INSERTs per table and round, the two tables alternating, s.Rounds
// rounds. The worker is reached with dsn's settings and the host and port
// the coordinator's metadata gives it.
func RunCitus(ctx context.Context, dsn string, s Settings) (*CitusReport, error) {
	s, err := s.normalize()
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	citus, coordinator, err := citus.Detect(ctx, db)
	if err != nil {
		return nil, err
	}
	if !citus || !coordinator {
		return nil, fmt.Errorf("%w (citus installed: %v)", ErrNotCitus, citus)
	}
	m, err := migrate.New(db, pgfunc.Options{}, migrate.Options{OwnDatabaseOnly: true})
	if err != nil {
		return nil, err
	}
	sh := pgfunc.Shard{Schema: CitusSchema, ID: 8191}
	if _, err := m.Up(ctx, []pgfunc.Shard{sh}, nil); err != nil {
		return nil, fmt.Errorf("up %s: %w", sh.Schema, err)
	}
	data := map[string]string{"Schema": pgx.Identifier{CitusSchema}.Sanitize()}
	if err := exec(ctx, db, "citusTables", data); err != nil {
		return nil, err
	}
	wq, err := render("citusWorker", nil)
	if err != nil {
		return nil, err
	}
	var host string
	var port uint16
	if err := db.QueryRowContext(ctx, wq).Scan(&host, &port); err != nil {
		return nil, fmt.Errorf("a worker of the cluster: %w", err)
	}
	coord, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	worker := coord.Copy()
	worker.Host, worker.Port, worker.Fallbacks = host, port, nil
	rep := &CitusReport{Settings: s}
	p := &progress{s: s, total: s.Rounds * 8}
	for _, entry := range []struct {
		name string
		cfg  *pgx.ConnConfig
	}{{"coordinator", coord}, {"worker", worker}} {
		for _, proto := range []struct {
			name string
			mode pgx.QueryExecMode
		}{{"simple", pgx.QueryExecModeSimpleProtocol}, {"extended", pgx.QueryExecModeCacheStatement}} {
			row := CitusRow{Entry: entry.name, Protocol: proto.name}
			var ids, serials, ratios []float64
			for r := 1; r <= s.Rounds; r++ {
				p.round = r
				for _, table := range []string{"bench_next_id", "bench_bigserial"} {
					p.next(fmt.Sprintf("%s, %s protocol: %s", entry.name, proto.name, table))
					q, err := render("citusInsert", map[string]string{"Schema": data["Schema"], "Table": table})
					if err != nil {
						return nil, err
					}
					rate, err := citusInserts(ctx, entry.cfg, proto.mode, q, s)
					if err != nil {
						return nil, fmt.Errorf("%s through the %s, %s protocol: %w", table, entry.name, proto.name, err)
					}
					if table == "bench_next_id" {
						ids = append(ids, rate)
					} else {
						serials = append(serials, rate)
						ratios = append(ratios, rate/ids[len(ids)-1])
					}
				}
			}
			row.NextID, row.Bigserial, row.Latency = median(ids), median(serials), median(ratios)
			rep.Rows = append(rep.Rows, row)
		}
	}
	rq, err := render("citusRepeats", data)
	if err != nil {
		return nil, err
	}
	if err := db.QueryRowContext(ctx, rq).Scan(&rep.Repeats); err != nil {
		return nil, err
	}
	if rep.Repeats > 0 {
		return rep, fmt.Errorf("%d IDs of next_id() repeated", rep.Repeats)
	}
	return rep, nil
}

// citusInserts runs s.Clients connections of cfg, each s.Rows INSERTs q,
// and returns the rows per second of them all.
func citusInserts(ctx context.Context, cfg *pgx.ConnConfig, mode pgx.QueryExecMode, q string, s Settings) (float64, error) {
	conns := make([]*pgx.Conn, s.Clients)
	for i := range conns {
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return 0, err
		}
		defer c.Close(context.WithoutCancel(ctx))
		conns[i] = c
		if _, err := c.Exec(ctx, q, mode, 0); err != nil { // warm: plan, session gate
			return 0, err
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, len(conns))
	start := time.Now()
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < s.Rows && errs[i] == nil; r++ {
				_, errs[i] = c.Exec(ctx, q, mode, r)
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	return float64(s.Clients*s.Rows) / took.Seconds(), nil
}

// median of xs (not empty); it sorts xs.
func median(xs []float64) float64 {
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
