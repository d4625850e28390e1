package waitingroom

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"seatflow/services"
)

// TestTokens_BoundToUserShowAndTime: a token admits its user to its show, in its room's
// epoch, until it expires; anything else (a token signed before the room was turned
// on again among them) is NOT_ADMITTED with the reason counted.
func TestTokens_BoundToUserShowAndTime(t *testing.T) {
	now := time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC)
	var reasons []string
	tok := NewTokens([]byte("shared"), func(r string) { reasons = append(reasons, r) })
	good := tok.Sign(7, 42, 3, now.Add(AdmittedFor))
	other := NewTokens([]byte("another secret"), nil).Sign(7, 42, 3, now.Add(AdmittedFor))
	for _, c := range []struct {
		name, token string
		user, show  int64
		epoch       int
		at          time.Time
		reason      string
	}{
		{"own token", good, 7, 42, 3, now, ""},
		{"a second before expiry", good, 7, 42, 3, now.Add(AdmittedFor - time.Second), ""},
		{"a show read before the room was turned on", good, 7, 42, 2, now, ""},
		{"at expiry", good, 7, 42, 3, now.Add(AdmittedFor), "expired"},
		{"the room turned on again", good, 7, 42, 4, now, "epoch"},
		{"another buyer", good, 8, 42, 3, now, "other"},
		{"another show", good, 7, 43, 3, now, "other"},
		{"no token", "", 7, 42, 3, now, "missing"},
		{"another secret", other, 7, 42, 3, now, "invalid"},
		{"edited user", strings.Replace(good, ".7.", ".8.", 1), 8, 42, 3, now, "invalid"},
		{"edited epoch", strings.Replace(good, ".3.", ".4.", 1), 7, 42, 4, now, "invalid"},
		{"garbage", "x.y", 7, 42, 3, now, "invalid"},
		{"no signature", "42.7.3.99999999999", 7, 42, 3, now, "invalid"},
		{"the format before epochs", "42.7.99999999999." + tok.mac("42.7.99999999999"), 7, 42, 0, now, "invalid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			reasons = nil
			err := tok.Check(c.token, c.user, c.show, c.epoch, c.at)
			if c.reason == "" {
				if err != nil || !tok.Valid(c.token, c.user, c.show, c.epoch, c.at) {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if services.ErrorCode(err) != services.CodeNotAdmitted {
				t.Fatalf("got %v, want NOT_ADMITTED", err)
			}
			if len(reasons) != 1 || reasons[0] != c.reason {
				t.Errorf("counted %v, want [%s]", reasons, c.reason)
			}
			if tok.Valid(c.token, c.user, c.show, c.epoch, c.at) {
				t.Error("Valid says yes")
			}
		})
	}
}

// TestEstimateWait: the pace sets the estimate until the queue has been busy 10 s; then
// a measured rate below the pace takes over (never a faster one; a busy room that
// admitted nobody counts as one admission); the range brackets it.
func TestEstimateWait(t *testing.T) {
	for _, c := range []struct {
		name                   string
		position, pace, recent int
		busyFor                time.Duration
		want                   Estimate
	}{
		{"not waiting", 0, 60, 0, time.Minute, Estimate{}},
		{"at the pace", 60, 60, 0, 0, Estimate{Seconds: 60, Low: 48, High: 72}},
		{"measured slower than the pace", 60, 120, 30, time.Minute, Estimate{Seconds: 120, Low: 96, High: 141}},
		{"measured faster than the pace is not believed", 60, 60, 120, time.Minute, Estimate{Seconds: 60, Low: 48, High: 72}},
		{"too early to measure", 60, 120, 1, 5 * time.Second, Estimate{Seconds: 30, Low: 24, High: 38}},
		{"a queue that was not busy (empty, or just filled)", 60, 120, 0, 0, Estimate{Seconds: 30, Low: 24, High: 38}},
		{"busy and stalled", 10, 120, 0, time.Minute, Estimate{Seconds: 600, Low: 480, High: 693}},
		{"a short window", 10, 120, 10, 20 * time.Second, Estimate{Seconds: 20, Low: 16, High: 26}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := EstimateWait(c.position, c.pace, c.recent, c.busyFor); got != c.want {
				t.Errorf("EstimateWait(%d, %d, %d, %v) = %+v, want %+v", c.position, c.pace, c.recent, c.busyFor, got, c.want)
			}
		})
	}
}

// TestTokens_PooledMACsMatchFreshOnes: the keyed HMAC states are reused across calls
// and goroutines; every signature is still the HMAC-SHA256 of its own text alone, and
// a place token reads back as the place it was signed with.
func TestTokens_PooledMACsMatchFreshOnes(t *testing.T) {
	secret := []byte("shared")
	tok := NewTokens(secret, nil)
	fresh := func(text string) string {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte(text))
		return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	}
	exp := time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				user := int64(g*1000 + i)
				a := tok.Sign(user, 42, 1, exp)
				body, mac, _ := strings.Cut(a, ".1893492000.")
				if want := fresh("admission|" + body + ".1893492000"); mac != want {
					errs <- "admission token of user " + body + ": " + mac + ", want " + want
					return
				}
				p := Place{Seq: int64(i % 3), QueueID: "q" + strconv.FormatInt(user, 36), First: i + 1, Draw: int64(i) * 7919, BeatAt: int64(i)}
				pt := tok.SignPlace(user, 42, p)
				got, ok := tok.CheckPlace(pt, user, 42)
				// the draw is unsealed only for a place not numbered yet; signed again, the
				// token carries it sealed as it was
				if !ok || got.Seq != p.Seq || got.QueueID != p.QueueID || got.First != p.First || got.BeatAt != p.BeatAt ||
					(p.Seq == 0 && got.Draw != p.Draw) || tok.SignPlace(user, 42, got) != pt {
					errs <- "place token read back as " + pt
					return
				}
				i := strings.LastIndexByte(pt, '.')
				if want := fresh("place|" + pt[:i]); pt[i+1:] != want {
					errs <- "place token " + pt + ", want the MAC " + want
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
