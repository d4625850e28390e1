package clustertest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// liveStream is one viewer of a show's live seat map through the balancer.
type liveStream struct {
	upstream string
	events   chan liveEvent
}

// liveEvent is one Server-Sent Event: its name and data.
type liveEvent struct {
	name string
	data []byte
}

// openLive opens GET /shows/{id}/live through the balancer and reads its events into
// a channel until ctx ends.
func (c *cluster) openLive(ctx context.Context, show int64) *liveStream {
	c.t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/shows/%d/live", c.base, show), nil)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := (&http.Client{}).Do(req) // no timeout: the stream stays open
	if err != nil {
		c.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		c.t.Fatalf("live stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &liveStream{upstream: resp.Header.Get("X-Seatflow-Upstream"), events: make(chan liveEvent, 64)}
	go func() {
		defer resp.Body.Close()
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev liveEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				ev.data = append(ev.data, line[len("data: "):]...)
			case line == "" && ev.data != nil:
				s.events <- ev
				ev = liveEvent{}
			}
		}
	}()
	return s
}

// TestCluster_LiveSeatMapAcrossInstances opens one live seat map stream per instance
// through the balancer (least connections spreads them), then holds one seat through
// each instance directly: every stream must tell every hold, so each instance's viewers
// see the changes made on every other instance. A stream that stays silent fails the
// test after liveWait.
func TestCluster_LiveSeatMapAcrossInstances(t *testing.T) {
	c := newCluster(t)
	if len(c.instances) < 2 {
		t.Skip("SEATFLOW_CLUSTER_INSTANCES names fewer than two instances")
	}
	const liveWait = 20 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fx := c.fixtures(ctx)
	hall, err := fx.NewHall(ctx, "live", 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	show, err := fx.NewShow(ctx, hall, 4)
	if err != nil {
		t.Fatal(err)
	}
	buyers, err := fx.NewVisitors(ctx, show, len(c.instances))
	if err != nil {
		t.Fatal(err)
	}
	streams := make([]*liveStream, len(c.instances))
	served := map[string]bool{}
	for i := range streams {
		streams[i] = c.openLive(ctx, show)
		served[streams[i].upstream] = true
		select {
		case ev, ok := <-streams[i].events:
			if !ok || ev.name != "snapshot" {
				t.Fatalf("stream %d: first event %q, want snapshot", i, ev.name)
			}
		case <-time.After(liveWait):
			t.Fatalf("stream %d (via %s): no snapshot", i, streams[i].upstream)
		}
	}
	t.Logf("%d live streams through the balancer, served by %d instances", len(streams), len(served))
	crossed := 0
	for i, in := range c.instances {
		seat := strconv.FormatInt(hall.Seats[i].ID, 10)
		a := c.do(ctx, in, "POST", fmt.Sprintf("/api/v1/shows/%d/orders", show), buyers[i].Token, map[string]any{"seat_ids": []string{seat}})
		if a.err != nil || a.status != http.StatusCreated {
			t.Fatalf("hold seat %s on %s: %d %v %s", seat, in, a.status, a.err, a.body)
		}
		for j, s := range streams {
			if err := waitHeld(s, seat, liveWait); err != nil {
				t.Errorf("stream %d (via %s) after a hold on %s: %v", j, s.upstream, in, err)
				continue
			}
			if "http://"+s.upstream != in {
				crossed++
			}
		}
	}
	t.Logf("%d holds, one per instance: every stream told every hold; %d of them made on another instance than the stream's", len(c.instances), crossed)
	if crossed == 0 && !t.Failed() {
		t.Error("no change crossed instances: the streams were all served by the instance of every change")
	}
}

// waitHeld reads the stream's events until one says seat is held.
func waitHeld(s *liveStream, seat string, wait time.Duration) error {
	deadline := time.After(wait)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return fmt.Errorf("stream ended before seat %s was held", seat)
			}
			var ch struct {
				Seats map[string]string `json:"seats"`
				Held  []string          `json:"held"`
			}
			if err := json.Unmarshal(ev.data, &ch); err != nil {
				return fmt.Errorf("event %q: %w", ev.name, err)
			}
			if ch.Seats[seat] == "held" {
				return nil
			}
			for _, h := range ch.Held { // a fresh snapshot
				if h == seat {
					return nil
				}
			}
		case <-deadline:
			return fmt.Errorf("seat %s: no event saying it is held within %s", seat, wait)
		}
	}
}
