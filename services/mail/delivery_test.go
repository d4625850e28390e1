package mail_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"seatflow/jobs"
	"seatflow/services/internal/testenv"
	"seatflow/services/mail"
	"seatflow/services/orders"
)

// fixture is the real stores, an SMTP sink and a deliverer to it.
type fixture struct {
	e       *testenv.TestEnv
	outbox  *mail.Outbox
	sink    *sink
	d       *mail.Deliverer
	secret  []byte
	secrets *mail.Secrets
}

const testBaseURL = "https://tickets.example"

func newFixture(t *testing.T) *fixture {
	t.Helper()
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.QuietLogs()
	// the shows' cinema: e-mails tell a show's times in its cinema's zone
	testenv.SetFirstCinemaZone(t, e.DB, "Asia/Shanghai")
	e.Catalog.ForgetCinemas()
	f := &fixture{e: e, outbox: mail.NewOutbox(e.DB, e.Clock), sink: newSink(t), secret: []byte("mail-test-ticket-secret")}
	var err error
	if f.secrets, err = mail.NewSecrets(f.secret); err != nil {
		t.Fatal(err)
	}
	zone, _ := time.LoadLocation("Asia/Shanghai")
	f.d = &mail.Deliverer{Outbox: f.outbox, Sender: f.sink.sender(t), From: "seatflow <no-reply@seatflow.test>",
		Domain: "seatflow.test", Clock: e.Clock, Delay: func(int) time.Duration { return 100 * time.Millisecond },
		Renderer: &mail.Renderer{Orders: e.Orders, Shows: e.Catalog, Tickets: orders.NewTickets(f.secret), Secrets: f.secrets, BaseURL: testBaseURL, Zone: zone}}
	return f
}

// user creates a customer reading lang.
func (f *fixture) user(t *testing.T, n int, lang string) int64 {
	t.Helper()
	id := f.e.User(n)
	f.e.Exec("UPDATE users SET lang = ? WHERE id = ?", lang, id)
	return id
}

// queue writes ms in one transaction, as an event's would, and returns the new rows'
// ids in order.
// forgetEventMails deletes the e-mails the orders' own events queued (invariant 16), so
// a test delivers only the rows it queues itself.
func (f *fixture) forgetEventMails(t *testing.T) {
	t.Helper()
	if _, err := f.e.DB.Exec("DELETE FROM mail_outbox"); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) queue(t *testing.T, ms ...mail.Message) []int64 {
	t.Helper()
	var before int64
	if err := f.e.DB.Get(&before, "SELECT COALESCE(MAX(id), 0) FROM mail_outbox"); err != nil {
		t.Fatal(err)
	}
	tx := f.e.DB.MustBegin()
	if err := mail.Queue(context.Background(), tx, f.e.Clock.Now(), ms...); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	if err := f.e.DB.Select(&ids, "SELECT id FROM mail_outbox WHERE id > ? ORDER BY id", before); err != nil {
		t.Fatal(err)
	}
	if len(ids) != len(ms) {
		t.Fatalf("queued %d messages, %d rows", len(ms), len(ids))
	}
	return ids
}

// worker starts an asynq worker (as one seatflow process runs) that delivers mail
// tasks with the fixture's deliverer and retries them after its Delay.
func (f *fixture) worker(t *testing.T) {
	t.Helper()
	srv := asynq.NewServerFromRedisClient(f.e.RDB, asynq.Config{Concurrency: 4, Queues: map[string]int{jobs.Queue: 1},
		DelayedTaskCheckInterval: 100 * time.Millisecond, LogLevel: asynq.FatalLevel,
		RetryDelayFunc: jobs.RetryDelay(f.d.Delay), ShutdownTimeout: time.Second})
	mux := asynq.NewServeMux()
	jobs.HandleMail(mux, f.d)
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
}

// dispatcher returns a dispatcher that enqueues asynq tasks.
func (f *fixture) dispatcher(t *testing.T) *mail.Dispatcher {
	c := asynq.NewClientFromRedisClient(f.e.RDB)
	t.Cleanup(func() { _ = c.Close() })
	return mail.NewDispatcher(f.outbox, jobs.NewMailQueue(c), 50*time.Millisecond, nil)
}

// waitStatus waits (up to 20 s) until every row of ids has status, then returns them.
func (f *fixture) waitStatus(t *testing.T, status string, ids ...int64) []*mail.Row {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		rows := make([]*mail.Row, 0, len(ids))
		done := true
		for _, id := range ids {
			r, err := f.outbox.Get(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, r)
			done = done && r.Status == status
		}
		if done {
			return rows
		}
		if time.Now().After(deadline) {
			for _, r := range rows {
				t.Logf("row %d: %s attempts=%d err=%v", r.ID, r.Status, r.Attempts, strOf(r.LastError))
			}
			t.Fatalf("rows did not all reach %s", status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func strOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// byMessageID indexes the sink's messages by Message-ID, failing on a duplicate.
func byMessageID(t *testing.T, got []*received) map[string]*received {
	t.Helper()
	m := map[string]*received{}
	for _, r := range got {
		if m[r.MessageID] != nil {
			t.Fatalf("message %s arrived twice", r.MessageID)
		}
		m[r.MessageID] = r
	}
	return m
}

// msgID is the Message-ID header of outbox row id, as its stored key makes it.
func (f *fixture) msgID(t *testing.T, id int64) string {
	t.Helper()
	r, err := f.outbox.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return "<" + mail.RowMessageID(r, "seatflow.test") + ">"
}

// resetMessage is a password_reset e-mail to user with link sealed as Resets seals it.
func (f *fixture) resetMessage(t *testing.T, user int64, link, key string) mail.Message {
	t.Helper()
	sealed, err := f.secrets.Seal(link, mail.ResetLinkUse(user))
	if err != nil {
		t.Fatal(err)
	}
	return mail.Message{Kind: mail.PasswordReset, UserID: user, Data: map[string]string{mail.DataLinkSealed: sealed}, Key: key}
}

// TestDelivery_BodiesInTheReadersLanguageWithTicketQRAndLinks: rows queued in an
// event's transaction go out through the dispatcher and the asynq task to the SMTP
// server: an English buyer's order_paid carries the signed ticket reference and its QR
// code as an inline PNG (cid:ticket-qr) and the order page's link; a Chinese buyer's
// order_created and password_reset are in Chinese, with the pay-by deadline in the
// cinema's zone, the total as money, and the reset link.
func TestDelivery_BodiesInTheReadersLanguageWithTicketQRAndLinks(t *testing.T) {
	f := newFixture(t)
	en, zh := f.user(t, 1, "en"), f.user(t, 2, "zh-Hans")
	paid, err := f.e.Create(en, f.e.SeatIDs("E5", "E6")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.e.PayOrder(paid); err != nil {
		t.Fatal(err)
	}
	pending, err := f.e.Create(zh, f.e.SeatIDs("H3")...)
	if err != nil {
		t.Fatal(err)
	}
	f.forgetEventMails(t)
	resetLink := testBaseURL + "/password/reset?token=abc123"
	ids := f.queue(t,
		mail.Message{Kind: mail.OrderPaid, UserID: en, OrderNo: paid.OrderNo},
		mail.Message{Kind: mail.OrderCreated, UserID: zh, OrderNo: pending.OrderNo},
		f.resetMessage(t, zh, resetLink, "reset:t1"))
	f.worker(t)
	if n, err := f.dispatcher(t).Pass(context.Background()); err != nil || n != 3 {
		t.Fatalf("dispatch pass: %d, %v", n, err)
	}
	f.waitStatus(t, mail.StatusSent, ids...)
	got := byMessageID(t, f.sink.messages())
	if len(got) != 3 {
		t.Fatalf("%d messages arrived, want 3", len(got))
	}
	movie := f.e.Show.Movie.Title
	var cinema string
	if err := f.e.DB.Get(&cinema, "SELECT name FROM cinemas WHERE id = ?", f.e.Hall.CinemaID); err != nil {
		t.Fatal(err)
	}
	t.Run("order_paid in English with the ticket QR", func(t *testing.T) {
		m := got[f.msgID(t, ids[0])]
		if m == nil {
			t.Fatalf("no message %s", f.msgID(t, ids[0]))
		}
		o, err := f.e.Orders.ByNo(context.Background(), paid.OrderNo)
		if err != nil {
			t.Fatal(err)
		}
		ref := orders.TicketRef(f.secret, o)
		for _, want := range []string{"Your tickets for " + movie} {
			if m.Subject != want {
				t.Errorf("subject %q, want %q", m.Subject, want)
			}
		}
		for _, want := range []string{"Thank you", paid.OrderNo, "E5", "E6", "¥90.00", "paid", cinema, ref, testBaseURL + "/orders/" + paid.OrderNo} {
			if !strings.Contains(m.Text, want) || !strings.Contains(m.HTML, want) {
				t.Errorf("text or HTML lacks %q\ntext:\n%s", want, m.Text)
			}
		}
		if !strings.Contains(m.Text, "Cinema: "+cinema) {
			t.Errorf("the e-mail does not name the cinema:\n%s", m.Text)
		}
		if !strings.Contains(m.HTML, `src="cid:ticket-qr"`) {
			t.Error("the HTML does not show the inline QR code")
		}
		img, err := png.Decode(bytes.NewReader(m.Images[mail.QRContentID]))
		if err != nil {
			t.Fatalf("inline image %q is not a PNG: %v (images: %d)", mail.QRContentID, err, len(m.Images))
		}
		t.Logf("QR code %dx%d px, ticket %s", img.Bounds().Dx(), img.Bounds().Dy(), ref)
		if m.To != f.email(t, en) {
			t.Errorf("to %q", m.To)
		}
	})
	t.Run("order_created in Chinese with the deadline", func(t *testing.T) {
		m := got[f.msgID(t, ids[1])]
		if m == nil {
			t.Fatalf("no message %s", f.msgID(t, ids[1]))
		}
		// 10:00 UTC + 15 min hold is 18:15 in Shanghai, Monday 30 November 2026
		deadline := "2026年11月30日 周一 18:15"
		if want := "《" + movie + "》座位已为您保留，请在 " + deadline + " 前付款"; m.Subject != want {
			t.Errorf("subject %q, want %q", m.Subject, want)
		}
		for _, want := range []string{"您好", "待付款", "付款截止", deadline, "H3", "¥65.00", cinema, "立即付款", testBaseURL + "/orders/" + pending.OrderNo} {
			if !strings.Contains(m.Text, want) || !strings.Contains(m.HTML, want) {
				t.Errorf("text or HTML lacks %q\ntext:\n%s", want, m.Text)
			}
		}
		if !strings.Contains(m.Text, "影院："+cinema) {
			t.Errorf("the e-mail does not name the cinema:\n%s", m.Text)
		}
		if len(m.Images) != 0 {
			t.Errorf("a pending order's e-mail has %d images", len(m.Images))
		}
	})
	t.Run("password_reset in Chinese with its link", func(t *testing.T) {
		m := got[f.msgID(t, ids[2])]
		if m == nil {
			t.Fatalf("no message %s", f.msgID(t, ids[2]))
		}
		if m.Subject != "重置您的 seatflow 密码" || !strings.Contains(m.Text, resetLink) || !strings.Contains(m.HTML, `href="`+resetLink+`"`) {
			t.Errorf("subject %q, text:\n%s", m.Subject, m.Text)
		}
	})
}

func (f *fixture) email(t *testing.T, user int64) string {
	var s string
	if err := f.e.DB.Get(&s, "SELECT email FROM users WHERE id = ?", user); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDelivery_TemporaryRefusalIsRetriedOnce: the SMTP server answers the first attempt
// 451; asynq runs the task again after the back-off and the second attempt is
// accepted: exactly one message arrived, and the row is sent after 2 attempts.
func TestDelivery_TemporaryRefusalIsRetriedOnce(t *testing.T) {
	f := newFixture(t)
	f.sink.failFirst, f.sink.failCode = 1, 451
	u := f.user(t, 1, "en")
	o, err := f.e.Create(u, f.e.SeatIDs("C4")...)
	if err != nil {
		t.Fatal(err)
	}
	f.forgetEventMails(t)
	ids := f.queue(t, mail.Message{Kind: mail.OrderCreated, UserID: u, OrderNo: o.OrderNo})
	f.worker(t)
	if _, err := f.dispatcher(t).Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	row := f.waitStatus(t, mail.StatusSent, ids...)[0]
	got := f.sink.messages()
	t.Logf("refused %d, arrived %d, attempts %d", f.sink.refused, len(got), row.Attempts)
	if len(got) != 1 || f.sink.refused != 1 || row.Attempts != 2 || row.LastError != nil || row.SentAt == nil {
		t.Fatalf("arrived %d, refused %d, row %+v", len(got), f.sink.refused, row)
	}
}

// TestDelivery_LastAttemptOrPermanentRefusalEndsFailed: after MaxAttempts temporary
// refusals, or at once on a 5xx refusal, the row ends failed with the server's answer
// and nothing arrived.
func TestDelivery_LastAttemptOrPermanentRefusalEndsFailed(t *testing.T) {
	for _, tc := range []struct {
		name         string
		code         int
		wantAttempts int
	}{
		{"451 on every attempt", 451, 3},
		{"550 at once", 550, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.sink.failFirst, f.sink.failCode = 100, tc.code
			f.d.MaxAttempts = 3
			u := f.user(t, 1, "en")
			ids := f.queue(t, f.resetMessage(t, u, testBaseURL+"/x", "r"))
			for i := 0; i < 5; i++ {
				_ = f.d.Deliver(context.Background(), ids[0])
			}
			r, err := f.outbox.Get(context.Background(), ids[0])
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != mail.StatusFailed || r.Attempts != tc.wantAttempts || !strings.Contains(strOf(r.LastError), fmt.Sprint(tc.code)) ||
				len(f.sink.messages()) != 0 {
				t.Fatalf("row %s attempts=%d err=%q, arrived %d", r.Status, r.Attempts, strOf(r.LastError), len(f.sink.messages()))
			}
		})
	}
}

// TestDelivery_RacingWorkersDeliverEachRowOnce: each row is delivered exactly once
// while (a) eight goroutines call Deliver on the same rows at once (the claim alone
// decides), and (b) two dispatchers and two asynq workers, as two processes would, pass
// over the same due rows again and again.
func TestDelivery_RacingWorkersDeliverEachRowOnce(t *testing.T) {
	f := newFixture(t)
	u := f.user(t, 1, "en")
	msgs := func(prefix string, n int) []mail.Message {
		out := make([]mail.Message, n)
		for i := range out {
			out[i] = f.resetMessage(t, u, testBaseURL+"/r", fmt.Sprintf("%s%d", prefix, i))
		}
		return out
	}
	direct := f.queue(t, msgs("a", 15)...)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, id := range direct {
				if err := f.d.Deliver(context.Background(), id); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	f.waitStatus(t, mail.StatusSent, direct...)

	tasks := f.queue(t, msgs("b", 15)...)
	f.worker(t)
	f.worker(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 0; i < 2; i++ {
		d := f.dispatcher(t)
		go d.Run(ctx)
		go func() { // nudges on top of the ticks
			for ctx.Err() == nil {
				d.Nudge()
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	f.waitStatus(t, mail.StatusSent, tasks...)
	time.Sleep(300 * time.Millisecond) // a late duplicate would arrive by now
	got := byMessageID(t, f.sink.messages())
	t.Logf("%d rows, %d messages arrived", len(direct)+len(tasks), len(got))
	if len(got) != len(direct)+len(tasks) {
		t.Fatalf("%d messages arrived for %d rows", len(got), len(direct)+len(tasks))
	}
	for _, id := range append(direct, tasks...) {
		if got[f.msgID(t, id)] == nil {
			t.Errorf("row %d never arrived", id)
		}
	}
	var attempts int
	if err := f.e.DB.Get(&attempts, "SELECT MAX(attempts) FROM mail_outbox"); err != nil || attempts != 1 {
		t.Fatalf("max attempts %d (%v), want 1", attempts, err)
	}
}

// TestDelivery_ClaimRunOutIsTakenAgainWithTheSameMessageID: a worker that claimed a row
// and died (between sending and marking, say) holds it only until its lease runs out;
// then the row is due again and its next delivery carries the same Message-ID, so the
// receiving side can tell a resend. Before that, nobody else may take it.
func TestDelivery_ClaimRunOutIsTakenAgainWithTheSameMessageID(t *testing.T) {
	f := newFixture(t)
	u := f.user(t, 1, "en")
	ids := f.queue(t, f.resetMessage(t, u, testBaseURL+"/r", "r"))
	ctx := context.Background()
	if r, err := f.outbox.Claim(ctx, ids[0], mail.DefaultLease); err != nil || r == nil {
		t.Fatalf("claim: %v, %v", r, err)
	}
	if err := f.d.Deliver(ctx, ids[0]); err != nil || len(f.sink.messages()) != 0 {
		t.Fatalf("a claimed row was delivered (%v, %d arrived)", err, len(f.sink.messages()))
	}
	if due, _ := f.outbox.Due(ctx, 10); len(due) != 0 {
		t.Fatalf("due while claimed: %v", due)
	}
	f.e.Clock.Advance(mail.DefaultLease)
	if due, _ := f.outbox.Due(ctx, 10); len(due) != 1 || due[0] != ids[0] {
		t.Fatalf("due after the lease: %v", due)
	}
	if err := f.d.Deliver(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	got := f.sink.messages()
	if len(got) != 1 || got[0].MessageID != f.msgID(t, ids[0]) {
		t.Fatalf("arrived %d, %+v", len(got), got)
	}
	if r, _ := f.outbox.Get(ctx, ids[0]); r.Status != mail.StatusSent || r.Attempts != 2 {
		t.Fatalf("row %s after %d attempts", r.Status, r.Attempts)
	}
}

// TestDispatcher_WithoutSMTPHoldsMails: with no SMTP server configured the dispatcher
// moves queued rows to held, and they stay there.
func TestDispatcher_WithoutSMTPHoldsMails(t *testing.T) {
	f := newFixture(t)
	u := f.user(t, 1, "zh-Hans")
	ids := f.queue(t, f.resetMessage(t, u, testBaseURL+"/r", "r"))
	d := mail.NewDispatcher(f.outbox, nil, time.Second, nil)
	if n, err := d.Pass(context.Background()); err != nil || n != 1 {
		t.Fatalf("pass: %d, %v", n, err)
	}
	if r, _ := f.outbox.Get(context.Background(), ids[0]); r.Status != mail.StatusHeld {
		t.Fatalf("row %s", r.Status)
	}
	if due, _ := f.outbox.Due(context.Background(), 10); len(due) != 0 {
		t.Fatalf("held rows are due: %v", due)
	}
}

// TestDelivery_EndingsTellTheReasonInTheReadersLanguage: the reason codes the order
// events write (reasons.go) reach the reader translated, with the staff's note as they
// wrote it, and a show cancel's outcome says whether money goes back.
func TestDelivery_EndingsTellTheReasonInTheReadersLanguage(t *testing.T) {
	f := newFixture(t)
	en, zh := f.user(t, 1, "en"), f.user(t, 2, "zh-Hans")
	a, err := f.e.Create(en, f.e.SeatIDs("E5")...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.e.Create(zh, f.e.SeatIDs("H3")...)
	if err != nil {
		t.Fatal(err)
	}
	f.forgetEventMails(t)
	ids := f.queue(t,
		mail.Message{Kind: mail.OrderRefunded, UserID: en, OrderNo: a.OrderNo, Data: map[string]string{mail.DataReason: mail.ReasonLatePayment}, Key: "r:1"},
		mail.Message{Kind: mail.OrderCancelled, UserID: en, OrderNo: a.OrderNo, Data: map[string]string{mail.DataReason: mail.ReasonStaff, mail.DataNote: "seat broken"}, Key: "r:2"},
		func() mail.Message {
			m := mail.ShowCancelledMessage(mail.OutcomeRefunded, "放映机故障")
			m.UserID, m.OrderNo, m.ShowID = zh, b.OrderNo, f.e.Show.ID
			return m
		}())
	f.worker(t)
	if n, err := f.dispatcher(t).Pass(context.Background()); err != nil || n != 3 {
		t.Fatalf("dispatch pass: %d, %v", n, err)
	}
	f.waitStatus(t, mail.StatusSent, ids...)
	got := byMessageID(t, f.sink.messages())
	for i, want := range [][]string{
		{"Reason", "your payment arrived after the order had ended; it was refunded in full"},
		{"cinema staff ended the order", "Note", "seat broken"},
		{"原因", "您的付款将全额退款", "影院说明", "放映机故障"},
	} {
		t.Run(want[0], func(t *testing.T) {
			m := got[f.msgID(t, ids[i])]
			if m == nil {
				t.Fatalf("no message %s", f.msgID(t, ids[i]))
			}
			for _, w := range want {
				if !strings.Contains(m.Text, w) || !strings.Contains(m.HTML, w) {
					t.Errorf("text or HTML lacks %q\ntext:\n%s", w, m.Text)
				}
			}
		})
	}
}
