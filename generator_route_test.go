package shardid

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// drawFor is a NextFor body: the real one, or a broken one the tests must
// catch.
type drawFor func(g *Generator, key int64) (int64, error)

func realNextFor(g *Generator, key int64) (int64, error) { return g.NextFor(key) }

// brokenNextFor are the ways a NextFor can share the ID's bits or the
// sequence wrongly; every uniqueness test below is shown to fail on at
// least one of them.
var brokenNextFor = map[string]drawFor{
	// The route written over the sequence's low bits instead of below
	// them: sequence 1 with route 0 is sequence 0 with route 1.
	"route over the sequence": func(g *Generator, key int64) (int64, error) {
		g.mu.Lock()
		tick, seq, err := g.reserve()
		g.mu.Unlock()
		return tick<<g.timeShift | g.nodePart | seq | key&g.routeMask, err
	},
	// The key as it comes: its high bits spill into the sequence, shard
	// and time fields.
	"unmasked key": func(g *Generator, key int64) (int64, error) {
		g.mu.Lock()
		tick, seq, err := g.reserve()
		g.mu.Unlock()
		return tick<<g.timeShift | g.nodePart | seq<<g.seqShift | key, err
	},
	// Go's remainder: negative for a negative key, which sets every high
	// bit of the ID.
	"signed remainder": func(g *Generator, key int64) (int64, error) {
		g.mu.Lock()
		tick, seq, err := g.reserve()
		g.mu.Unlock()
		return tick<<g.timeShift | g.nodePart | seq<<g.seqShift | key%(g.routeMask+1), err
	},
	// A sequence per route that starts over whenever the clock's tick is
	// not the route's last one: a clock stepped back re-enters a tick the
	// route has used.
	"a sequence per route, restarted on any other tick": perRouteRestart(),
}

func perRouteRestart() drawFor {
	type state struct{ tick, seq int64 }
	var mu sync.Mutex
	routes := map[*Generator]map[int64]*state{}
	return func(g *Generator, key int64) (int64, error) {
		mu.Lock()
		defer mu.Unlock()
		if routes[g] == nil {
			routes[g] = map[int64]*state{}
		}
		route := key & g.routeMask
		st := routes[g][route]
		if st == nil {
			st = &state{tick: -1}
			routes[g][route] = st
		}
		for {
			now := g.clock()
			tick, err := g.tickOf(now)
			if err != nil {
				return 0, err
			}
			switch {
			case tick != st.tick:
				st.tick, st.seq = tick, 0
			case st.seq < g.maxSeq:
				st.seq++
			default:
				g.sleep(g.layout.TickTime(tick + 1).Sub(now))
				continue
			}
			return tick<<g.timeShift | g.nodePart | st.seq<<g.seqShift | route, nil
		}
	}
}

// idCheck collects the IDs of one generator and names the first that
// breaks NextFor's promises: never negative, never seen before, the
// generator's node in the shard field, RouteOf(key) in the route field.
type idCheck struct {
	l    Layout
	node int64
	mu   sync.Mutex
	seen map[int64]int64 // id -> key
}

func newIDCheck(l Layout, node int64) *idCheck {
	return &idCheck{l: l, node: node, seen: map[int64]int64{}}
}

func (c *idCheck) add(key, id int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id < 0 {
		return fmt.Errorf("key %d: negative id %d", key, id)
	}
	if k, dup := c.seen[id]; dup {
		return fmt.Errorf("key %d: id %d repeats (first drawn for key %d)", key, id, k)
	}
	c.seen[id] = key
	p, err := c.l.Decompose(id)
	if err != nil || p.Shard != c.node || p.Route != c.l.RouteOf(key) || c.l.RouteOf(id) != c.l.RouteOf(key) {
		return fmt.Errorf("key %d: id %d decodes to %+v, %v; want node %d, route %d", key, id, p, err, c.node, c.l.RouteOf(key))
	}
	return nil
}

// keys are the keys the tests draw for: small and large, negative, the
// extremes of int64, and pseudo-random ones.
func keys(n int, seed uint64) []int64 {
	fixed := []int64{0, 1, 12, 15, 16, 1820, 5177331, -1, -15, -16, -17, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]int64, n)
	for i := range out {
		if i%3 == 0 {
			out[i] = fixed[(i/3)%len(fixed)]
		} else {
			out[i] = int64(r.Uint64())
		}
	}
	return out
}

// burst draws every key in turn from one generator whose clock hardly
// moves, so whole ticks' sequences are used up and waited out, and
// returns the first broken promise: those of idCheck, and IDs strictly
// increasing.
func burst(g *Generator, draw drawFor, ks []int64) error {
	c := newIDCheck(g.layout, g.node)
	last := int64(-1)
	for _, k := range ks {
		id, err := draw(g, k)
		if err != nil {
			return err
		}
		if err := c.add(k, id); err != nil {
			return err
		}
		if id <= last {
			return fmt.Errorf("key %d: id %d after %d: not increasing", k, id, last)
		}
		last = id
	}
	return nil
}

// TestNextForBurst: bursts of several ticks' worth of IDs for every sort
// of key, in route layouts and in the presets (no route field), break no
// promise; the broken bodies that misplace the route do.
func TestNextForBurst(t *testing.T) {
	for _, spec := range []string{"time:41,node:6,seq:12,route:4,epoch=0", "time:41,shard:6,seq:4,route:4", "time:37@10ms,shard:8,seq:6,route:8", "time:40,shard:2,seq:1,route:20", "instagram", "snowflake", "js53"} {
		l := mustParse(t, spec)
		t.Run(spec, func(t *testing.T) {
			c := newFakeClock()
			c.step = time.Nanosecond
			g := newGen(t, c, Settings{Layout: l, Node: l.MaxShard() / 2})
			if err := burst(g, realNextFor, keys(int(3*(l.MaxSeq()+1)+5), 1)); err != nil {
				t.Fatal(err)
			}
			if len(c.Sleeps()) < 3 {
				t.Fatalf("%d waits for the next tick; the burst did not use up whole ticks", len(c.Sleeps()))
			}
		})
	}
	l := mustParse(t, "time:41,node:6,seq:12,route:4,epoch=0")
	for _, name := range []string{"route over the sequence", "unmasked key", "signed remainder"} {
		t.Run("negative control/"+name, func(t *testing.T) {
			c := newFakeClock()
			c.step = time.Nanosecond
			g := newGen(t, c, Settings{Layout: l, Node: 1})
			err := burst(g, brokenNextFor[name], keys(3*4096, 1))
			if err == nil {
				t.Fatalf("the burst test passes a NextFor with %s", name)
			}
			t.Logf("caught: %v", err)
		})
	}
}

// TestNextForSharesTheSequence: Next and NextFor draw from one sequence,
// 2^SeqBits IDs per tick whatever the routes: the (2^SeqBits+1)th draw of
// a tick waits for the next tick, however the keys spread over routes.
func TestNextForSharesTheSequence(t *testing.T) {
	l := mustParse(t, "time:41,shard:6,seq:4,route:4")
	c := newFakeClock()
	c.Set(c.now.Add(250 * time.Microsecond))
	g := newGen(t, c, Settings{Layout: l, Node: 3})
	want := []struct{ seq, route int64 }{{0, 5}, {1, 0}, {2, 15}}
	var got []Parts
	for _, draw := range []func() (int64, error){func() (int64, error) { return g.NextFor(5) }, g.Next, func() (int64, error) { return g.NextFor(-1) }} {
		id, err := draw()
		if err != nil {
			t.Fatal(err)
		}
		p, _ := l.Decompose(id)
		got = append(got, p)
	}
	for i, w := range want {
		if got[i].Seq != w.seq || got[i].Route != w.route || got[i].Ticks != got[0].Ticks {
			t.Fatalf("draw %d: %+v; want sequence %d, route %d in the first tick", i, got[i], w.seq, w.route)
		}
	}
	for k := int64(3); k <= l.MaxSeq(); k++ { // one key per route: still one sequence
		if _, err := g.NextFor(k); err != nil {
			t.Fatal(err)
		}
	}
	if s := c.Sleeps(); len(s) != 0 {
		t.Fatalf("waited %v within the tick's %d IDs", s, l.MaxSeq()+1)
	}
	id, err := g.NextFor(7)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := l.Decompose(id)
	if s := c.Sleeps(); len(s) != 1 || s[0] != 750*time.Microsecond || p.Ticks != got[0].Ticks+1 || p.Seq != 0 || p.Route != 7 {
		t.Fatalf("draw %d of a tick: %+v after sleeps %v; want sequence 0 of the next tick after one wait of 750µs", l.MaxSeq()+2, p, s)
	}
}

// TestNextForConcurrent: goroutines drawing at once, with Next and NextFor
// mixed, over a clock that moves as it is read: no ID twice, each
// goroutine's IDs increasing, every route the key's. The broken body that
// writes the route over the sequence repeats IDs under the same load.
func TestNextForConcurrent(t *testing.T) {
	run := func(draw drawFor) error {
		l := mustParse(t, "time:41,node:6,seq:12,route:4,epoch=0")
		c := newFakeClock()
		c.step = 50 * time.Nanosecond
		g := newGen(t, c, Settings{Layout: l, Node: 33})
		check := newIDCheck(l, 33)
		const workers, each = 8, 12000
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				last := int64(-1)
				for i, k := range keys(each, uint64(w)) {
					var id int64
					var err error
					if i%7 == 0 {
						id, err, k = func() (int64, error, int64) { id, err := g.Next(); return id, err, 0 }()
					} else {
						id, err = draw(g, k)
					}
					if err == nil {
						err = check.add(k, id)
					}
					if err == nil && id <= last {
						err = fmt.Errorf("goroutine %d: id %d after %d: not increasing", w, id, last)
					}
					if err != nil {
						errs[w] = err
						return
					}
					last = id
				}
			})
		}
		wg.Wait()
		return errors.Join(errs...)
	}
	if err := run(realNextFor); err != nil {
		t.Fatal(err)
	}
	if err := run(brokenNextFor["route over the sequence"]); err == nil {
		t.Fatal("the concurrency test passes a NextFor that writes the route over the sequence")
	} else {
		t.Logf("negative control caught: %v", err)
	}
}

// TestNextForClockBack: a clock stepped back within MaxBackwardStep is
// waited out by NextFor as by Next, so IDs drawn for every route before
// and after the step never meet; a larger step is ErrClockBackward. The
// broken body with a sequence per route that starts over on another tick
// repeats IDs after the same step.
func TestNextForClockBack(t *testing.T) {
	l := mustParse(t, "time:41,node:6,seq:12,route:4,epoch=0")
	run := func(draw drawFor) error {
		c := newFakeClock()
		g := newGen(t, c, Settings{Layout: l, Node: 1})
		check := newIDCheck(l, 1)
		round := func() error {
			for range 4 { // four ticks, every route in each
				for k := int64(0); k < 40; k++ {
					id, err := draw(g, k*1820)
					if err != nil {
						return err
					}
					if err := check.add(k*1820, id); err != nil {
						return err
					}
				}
				c.Set(c.now.Add(time.Millisecond))
			}
			return nil
		}
		if err := round(); err != nil {
			return err
		}
		c.Set(c.now.Add(-4 * time.Millisecond)) // back to the first tick
		if err := round(); err != nil {
			return err
		}
		c.Set(c.now.Add(-3 * time.Millisecond))
		return round()
	}
	if err := run(realNextFor); err != nil {
		t.Fatal(err)
	}
	if err := run(brokenNextFor["a sequence per route, restarted on any other tick"]); err == nil {
		t.Fatal("the clock test passes a NextFor with a sequence per route that starts over on another tick")
	} else {
		t.Logf("negative control caught: %v", err)
	}

	c := newFakeClock()
	g := newGen(t, c, Settings{Layout: l, Node: 1})
	if _, err := g.NextFor(3); err != nil {
		t.Fatal(err)
	}
	c.Set(c.now.Add(-6 * time.Millisecond))
	if _, err := g.NextFor(3); !errors.Is(err, ErrClockBackward) {
		t.Fatalf("NextFor after a 6ms step back: %v; want ErrClockBackward", err)
	}
}

// TestNextForWithoutRoute: in a layout without a route field NextFor is
// Next, whatever the key: twin generators on one clock make the same IDs.
func TestNextForWithoutRoute(t *testing.T) {
	for _, l := range []Layout{Instagram(), Snowflake(), JS53()} {
		c1, c2 := newFakeClock(), newFakeClock()
		c1.step, c2.step = 300*time.Nanosecond, 300*time.Nanosecond
		a := newGen(t, c1, Settings{Layout: l, Node: 5})
		b := newGen(t, c2, Settings{Layout: l, Node: 5})
		for i, k := range keys(5000, 3) {
			x, err1 := a.Next()
			y, err2 := b.NextFor(k)
			if err1 != nil || err2 != nil || x != y {
				t.Fatalf("%s, draw %d, key %d: Next %d, %v; NextFor %d, %v", l.Name, i, k, x, err1, y, err2)
			}
		}
	}
}

// TestNextForWorkedExample: the article's order IDs, drawn: node 1 at
// 2019-10-26T06:13:01Z (epoch 0), the first ID of the millisecond for uid
// 1820 and, from a fresh generator, for uid 5177331.
func TestNextForWorkedExample(t *testing.T) {
	l := mustParse(t, "time:41,node:6,seq:12,route:4,epoch=0")
	at := time.UnixMilli(1572070381000)
	for _, tc := range []struct{ uid, want int64 }{{1820, 6593741087309889548}, {5177331, 6593741087309889539}} {
		g, err := NewGenerator(Settings{Layout: l, Node: 1, Clock: func() time.Time { return at }})
		if err != nil {
			t.Fatal(err)
		}
		if id, err := g.NextFor(tc.uid); err != nil || id != tc.want {
			t.Fatalf("NextFor(%d) = %d, %v; want %d", tc.uid, id, err, tc.want)
		}
	}
}

// BenchmarkNextForCost is BenchmarkNextCost for NextFor in the route
// layout of the Snowflake-layout article, beside Next of the same
// generator: the route costs a mask and an OR.
func BenchmarkNextForCost(b *testing.B) {
	l, err := ParseLayout("time:41,node:6,seq:12,route:4")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"Next", "NextFor"} {
		b.Run(name, func(b *testing.B) {
			t := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
			g, err := NewGenerator(Settings{Layout: l, Node: 1, Clock: func() time.Time { t = t.Add(time.Microsecond); return t }})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			key := int64(1820)
			for b.Loop() {
				if name == "Next" {
					_, err = g.Next()
				} else {
					_, err = g.NextFor(key)
					key++
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
