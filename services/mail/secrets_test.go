package mail_test

import (
	"context"
	"strings"
	"testing"

	"seatflow/services/mail"
)

// TestSecrets_SealOpensOnlyForItsUseAndKey: a sealed value opens under the same secret
// for the same use; never in clear, two seals differ; another use (another account),
// another secret or a changed byte does not open.
func TestSecrets_SealOpensOnlyForItsUseAndKey(t *testing.T) {
	s, err := mail.NewSecrets([]byte("one installation's secret"))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := mail.NewSecrets([]byte("another installation's secret"))
	const link = "https://tickets.example/password/reset?token=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"
	a, err := s.Seal(link, mail.ResetLinkUse(7))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Seal(link, mail.ResetLinkUse(7))
	if a == b || strings.Contains(a, "token") || strings.Contains(a, "abcdefghijklmnop") {
		t.Fatalf("sealed %q and %q", a, b)
	}
	if got, err := s.Open(a, mail.ResetLinkUse(7)); err != nil || got != link {
		t.Fatalf("open: %q, %v", got, err)
	}
	tampered := a[:len(a)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(a, "AA")]
	for name, open := range map[string]func() (string, error){
		"another account":      func() (string, error) { return s.Open(a, mail.ResetLinkUse(8)) },
		"another installation": func() (string, error) { return other.Open(a, mail.ResetLinkUse(7)) },
		"a changed byte":       func() (string, error) { return s.Open(tampered, mail.ResetLinkUse(7)) },
		"a clear link":         func() (string, error) { return s.Open(link, mail.ResetLinkUse(7)) },
	} {
		if got, err := open(); err == nil || got != "" {
			t.Errorf("%s opened: %q", name, got)
		}
	}
}

// TestReset_LinkInClearOnlyInTheEmailAsSent: a reset e-mail's row holds its link only
// sealed; the mailbox's preview (both languages) says the link is redacted and does
// not show it; the message the SMTP server receives carries it in clear. A row whose
// link does not open (another installation's key) fails for good, never sent.
func TestReset_LinkInClearOnlyInTheEmailAsSent(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const token = "Zm9yLXRoZS1yZWRhY3Rpb24tdGVzdC1vbmx5LTMyYnl0ZXM"
	link := testBaseURL + "/password/reset?token=" + token
	en, zh := f.user(t, 1, "en"), f.user(t, 2, "zh-Hans")
	ids := f.queue(t, f.resetMessage(t, en, link, "reset:en"), f.resetMessage(t, zh, link, "reset:zh"))
	var dump string
	if err := f.e.DB.Get(&dump, `SELECT GROUP_CONCAT(CONCAT_WS('|', kind, dedupe_key, to_addr, COALESCE(data, ''), COALESCE(facts, ''),
		COALESCE(message_key, ''), COALESCE(last_error, '')) SEPARATOR '\n') FROM mail_outbox`); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(dump, token) || !strings.Contains(dump, mail.DataLinkSealed) {
		t.Fatalf("the outbox holds the token in clear, or no sealed link:\n%s", dump)
	}
	for i, want := range []string{"link redacted", "链接已隐去"} {
		row, err := f.outbox.Get(ctx, ids[i])
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.d.Renderer.Preview(ctx, row)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(p.Text+p.HTML, token) || !strings.Contains(p.Text, want) || !strings.Contains(p.HTML, want) {
			t.Errorf("mailbox preview of %s:\n%s", row.Lang, p.Text)
		}
	}
	for _, id := range ids {
		if err := f.d.Deliver(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	got := f.sink.messages()
	if len(got) != 2 {
		t.Fatalf("%d messages arrived", len(got))
	}
	for _, m := range got {
		if !strings.Contains(m.Text, link) || !strings.Contains(m.HTML, `href="`+link+`"`) || strings.Contains(m.Text, "redacted") {
			t.Errorf("the e-mail as sent lacks the link:\n%s", m.Text)
		}
	}
	other, _ := mail.NewSecrets([]byte("another installation's secret"))
	sealed, _ := other.Seal(link, mail.ResetLinkUse(en))
	id := f.queue(t, mail.Message{Kind: mail.PasswordReset, UserID: en, Data: map[string]string{mail.DataLinkSealed: sealed}, Key: "reset:other"})[0]
	_ = f.d.Deliver(ctx, id)
	if r, _ := f.outbox.Get(ctx, id); r.Status != mail.StatusFailed || len(f.sink.messages()) != 2 {
		t.Errorf("a link that does not open: row %s, %d messages", r.Status, len(f.sink.messages()))
	}
}

// TestMessageID_RandomFixedAtQueueKeptOnRetry: every row's Message-ID has a random part
// drawn when it is queued (not only its row id), so rows with the same id in a
// re-seeded database or another installation differ; a retried attempt carries the
// same Message-ID as the refused one.
func TestMessageID_RandomFixedAtQueueKeptOnRetry(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	u := f.user(t, 1, "en")
	first := f.queue(t, f.resetMessage(t, u, testBaseURL+"/r", "r1"))[0]
	idA := f.msgID(t, first)
	// the database seeded again: the same row id comes back
	f.e.Exec("DELETE FROM mail_outbox")
	f.e.Exec("ALTER TABLE mail_outbox AUTO_INCREMENT = 1")
	again := f.queue(t, f.resetMessage(t, u, testBaseURL+"/r", "r1"))[0]
	idB := f.msgID(t, again)
	if again != first {
		t.Logf("row ids %d and %d (the table did not reuse the id)", first, again)
	}
	if idA == idB || strings.Contains(idA, "mail-") || len(strings.TrimSuffix(strings.Trim(idA, "<>"), "@seatflow.test")) < 26 {
		t.Fatalf("Message-IDs %s and %s for row ids %d and %d", idA, idB, first, again)
	}
	f.sink.failFirst, f.sink.failCode = 1, 451
	if err := f.d.Deliver(ctx, again); err == nil {
		t.Fatal("the first attempt was not refused")
	}
	if r, _ := f.outbox.Get(ctx, again); r.Attempts != 1 || r.Status != mail.StatusQueued {
		t.Fatalf("after the refusal: %s, %d attempts", r.Status, r.Attempts)
	}
	f.e.Clock.Advance(mail.RetryDelay(0))
	if err := f.d.Deliver(ctx, again); err != nil {
		t.Fatal(err)
	}
	if got := f.sink.messages(); len(got) != 1 || got[0].MessageID != idB {
		t.Fatalf("the retry arrived as %+v, want Message-ID %s", got, idB)
	}
}

// TestSubject_ControlCharactersNeverReachTheHeader: a movie title holding VT, FF, DEL,
// C1 and a line break (stored before inputs refused them) reaches the Subject header
// without them and the body's values without them, and the header stays one line.
func TestSubject_ControlCharactersNeverReachTheHeader(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.e.Exec("UPDATE movies SET title = ? WHERE id = ?", "Dune\x0b\x0cPart\x7f Two\u0085\r\nBcc: x@example.test", f.e.Show.MovieID)
	u := f.user(t, 1, "en")
	o, err := f.e.Create(u, f.e.SeatIDs("D2")...)
	if err != nil {
		t.Fatal(err)
	}
	row := f.rowOf(t, o.OrderNo, mail.OrderCreated)
	if err := f.d.Deliver(ctx, row.ID); err != nil {
		t.Fatal(err)
	}
	got := f.sink.messages()
	if len(got) != 1 {
		t.Fatalf("%d messages", len(got))
	}
	m := got[0]
	for what, s := range map[string]string{"raw subject": m.RawSubject, "subject": m.Subject, "text": strings.ReplaceAll(m.Text, "\r\n", "\n")} {
		for _, r := range s {
			if (r < 0x20 && r != '\n') || (r >= 0x7f && r <= 0x9f) {
				t.Errorf("%s holds control %U: %q", what, r, s)
				break
			}
		}
	}
	if want := "Your seats for Dune Part Two Bcc: x@example.test are held"; !strings.HasPrefix(m.Subject, want) {
		t.Errorf("subject %q, want it to start %q", m.Subject, want)
	}
}
