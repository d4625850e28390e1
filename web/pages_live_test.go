package web

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// sseEvent is one Server-Sent Event as read by a test viewer.
type sseEvent struct{ name, data string }

// watchLive opens the live stream of show on base and returns its events as they come.
func watchLive(t *testing.T, base, show string) <-chan sseEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/shows/"+show+"/live", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("live: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	out := make(chan sseEvent, 64)
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			case line == "" && ev.name != "":
				out <- ev
				ev = sseEvent{}
			}
		}
	}()
	return out
}

// nextEvent waits up to d for the next event named name.
func nextEvent(t *testing.T, events <-chan sseEvent, name string, d time.Duration) (sseEvent, bool) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev := <-events:
			if ev.name == name {
				return ev, true
			}
		case <-deadline:
			return sseEvent{}, false
		}
	}
}

// TestLive_ViewersOnTwoInstancesSeeAHold: viewers of a show, one on each of two app
// instances sharing MySQL and Redis, get a snapshot on connecting and then see a hold
// made through the other instance, and its release; the events never say who holds
// the seat. (How fast is the load test's business: the 10 s here only bound a hang.)
func TestLive_ViewersOnTwoInstancesSeeAHold(t *testing.T) {
	a := newTestApp(t, nil)
	_, bBase := otherInstance(t, a.Cfg, a.clock)
	show, seats := a.onSaleShow(2)
	tok := a.newUser()
	viewers := []<-chan sseEvent{watchLive(t, a.base, show), watchLive(t, bBase, show)}
	for i, v := range viewers {
		ev, ok := nextEvent(t, v, "snapshot", 5*time.Second)
		if !ok {
			t.Fatalf("viewer %d: no snapshot", i)
		}
		var snap struct {
			Held      []string `json:"held"`
			SeatsLeft int      `json:"seats_left"`
		}
		if err := json.Unmarshal([]byte(ev.data), &snap); err != nil || snap.SeatsLeft == 0 {
			t.Fatalf("viewer %d: snapshot %q: %v", i, ev.data, err)
		}
	}
	time.Sleep(100 * time.Millisecond) // both subscriptions are confirmed before a process serves
	start := time.Now()
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", tok, map[string]any{"seat_ids": seats}, nil)
	if r.status != 201 {
		t.Fatalf("order: %d %s", r.status, r.body)
	}
	no := r.json(t)["order_no"].(string)
	for i, v := range viewers {
		ev, ok := nextEvent(t, v, "seats", 10*time.Second)
		if !ok {
			t.Fatalf("viewer %d: no change within 10 s of the hold", i)
		}
		t.Logf("viewer %d heard the hold %v after it was asked for", i, time.Since(start).Round(time.Millisecond))
		var ch struct {
			Seats     map[string]string `json:"seats"`
			SeatsLeft int               `json:"seats_left"`
		}
		if err := json.Unmarshal([]byte(ev.data), &ch); err != nil {
			t.Fatal(err)
		}
		for _, s := range seats {
			if ch.Seats[s] != "held" {
				t.Errorf("viewer %d: seat %s is %q in %s", i, s, ch.Seats[s], ev.data)
			}
		}
		if strings.Contains(ev.data, no) || strings.Contains(ev.data, "|") {
			t.Errorf("viewer %d: the event tells who holds the seats: %s", i, ev.data)
		}
	}
	if r := a.do("POST", "/api/v1/orders/"+no+"/cancel", tok, nil, nil); r.status != 200 {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	for i, v := range viewers {
		ev, ok := nextEvent(t, v, "seats", 2*time.Second)
		if !ok || !strings.Contains(ev.data, `"`+seats[0]+`":"free"`) {
			t.Errorf("viewer %d: release not seen: %q", i, ev.data)
		}
	}
}

// TestLive_NoRedisCallPerViewer: with 40 viewers watching, one hold costs Redis the same
// as with one: the change reaches every viewer from the process's single subscription.
func TestLive_NoRedisCallPerViewer(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(4)
	tok := a.newUser()
	// the app's own commands, counted on its client: Redis's commandstats would also
	// count the other test processes sharing the server
	var sent atomic.Int64
	a.Redis.AddHook(countCommands{&sent})
	calls := func() int { return int(sent.Load()) }
	holdCost := func(viewers int, seat string) int {
		var streams []<-chan sseEvent
		for i := 0; i < viewers; i++ {
			v := watchLive(t, a.base, show)
			if _, ok := nextEvent(t, v, "snapshot", 5*time.Second); !ok {
				t.Fatal("no snapshot")
			}
			streams = append(streams, v)
		}
		before := calls()
		if r := a.do("POST", "/api/v1/shows/"+show+"/orders", tok, map[string]any{"seat_ids": []string{seat}}, nil); r.status != 201 {
			t.Fatalf("order: %d %s", r.status, r.body)
		}
		for _, v := range streams {
			if _, ok := nextEvent(t, v, "seats", 2*time.Second); !ok {
				t.Fatal("a viewer missed the hold")
			}
		}
		return calls() - before
	}
	one := holdCost(1, seats[0])
	many := holdCost(40, seats[1])
	// background work (the expiry worker's polls) adds a few calls either way
	t.Logf("a hold cost %d Redis calls with 40 viewers and %d with one", many, one)
	if many > one+15 {
		t.Errorf("a hold cost %d Redis calls with 40 viewers and %d with one", many, one)
	}
}

// countCommands adds every command its client sends, one by one or in a pipeline, to n.
type countCommands struct{ n *atomic.Int64 }

func (countCommands) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c countCommands) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c countCommands) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}
