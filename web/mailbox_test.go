package web

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mailFixture is a paid order of a Chinese-reading buyer with the order_created and
// order_paid e-mails its events queued (invariant 16).
type mailFixture struct {
	email, orderNo string
	ids            []int64 // created, paid
}

func (a *testApp) mailFixture(t *testing.T) mailFixture {
	t.Helper()
	show, seats := a.onSaleShow(2)
	email := fmt.Sprintf("li.mail%d@example.test", time.Now().UnixNano())
	buyer, _ := a.registerReading(email, "zh-Hans")
	no := a.orderSeats(buyer, show, seats)
	a.payOrder(buyer, no)
	f := mailFixture{email: email, orderNo: no}
	if err := a.DB.Select(&f.ids, "SELECT id FROM mail_outbox WHERE order_no = ? ORDER BY id", no); err != nil || len(f.ids) != 2 {
		t.Fatalf("outbox rows %v: %v", f.ids, err)
	}
	a.Mail.Nudge()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var held int
		if err := a.DB.Get(&held, "SELECT COUNT(*) FROM mail_outbox WHERE order_no = ? AND status = 'held'", no); err != nil {
			t.Fatal(err)
		}
		if held == 2 {
			return f
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 2 rows held", held)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestMailbox_WithoutSMTPMailsAreHeldAndListedForAdmins: with no SEATFLOW_SMTP_URL the
// e-mails of an order end held (nothing is sent or lost); the development mailbox lists
// them for an admin, newest first, filters by address, shows a failed e-mail's error,
// and renders one message in the reader's language with its QR code; customers and
// staff get 403.
func TestMailbox_WithoutSMTPMailsAreHeldAndListedForAdmins(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.mailFixture(t)
	admin := a.demoToken("admin")
	t.Run("list", func(t *testing.T) {
		r := a.getPage("/admin/mailbox", admin)
		if r.status != http.StatusOK {
			t.Fatalf("mailbox: %d", r.status)
		}
		body := string(r.body)
		paid, created := strings.Index(body, `id="mail-`+fmt.Sprint(f.ids[1])+`"`), strings.Index(body, `id="mail-`+fmt.Sprint(f.ids[0])+`"`)
		if paid < 0 || created < 0 || paid > created {
			t.Errorf("the rows are not listed newest first (paid at %d, created at %d)", paid, created)
		}
		for _, want := range []string{f.email, "order_paid", "order_created", ">held<", "》电影票", "座位已为您保留", `href="/admin/mailbox/` + fmt.Sprint(f.ids[1]) + `"`, `href="/admin/mailbox"`} {
			if !strings.Contains(body, want) {
				t.Errorf("the mailbox lacks %q", want)
			}
		}
	})
	t.Run("filter by address", func(t *testing.T) {
		part := strings.ToUpper(f.email[:strings.Index(f.email, "@")])
		if body := string(a.getPage("/admin/mailbox?to="+part, admin).body); !strings.Contains(body, f.email) {
			t.Errorf("?to=%s does not list %s", part, f.email)
		}
		if body := string(a.getPage("/admin/mailbox?to=nobody-has-this", admin).body); strings.Contains(body, f.email) || !strings.Contains(body, "No e-mails match.") {
			t.Error("?to=nobody-has-this lists e-mails")
		}
	})
	t.Run("failed with its error", func(t *testing.T) {
		if _, err := a.DB.Exec("UPDATE mail_outbox SET status = 'failed', attempts = 8, last_error = '550 5.1.1 mailbox unavailable' WHERE id = ?", f.ids[0]); err != nil {
			t.Fatal(err)
		}
		body := string(a.getPage("/admin/mailbox", admin).body)
		if !strings.Contains(body, ">failed<") || !strings.Contains(body, "550 5.1.1 mailbox unavailable") {
			t.Error("a failed e-mail is listed without its status or error")
		}
	})
	t.Run("one message", func(t *testing.T) {
		r := a.getPage(fmt.Sprintf("/admin/mailbox/%d", f.ids[1]), admin)
		body := string(r.body)
		if r.status != http.StatusOK {
			t.Fatalf("message: %d", r.status)
		}
		for _, want := range []string{"您的《", "》电影票", `sandbox=""`, "srcdoc=", "data:image/png;base64,", "票券编号", "SF1." + f.orderNo + ".", f.orderNo,
			"http://127.0.0.1:8080/orders/" + f.orderNo} {
			if !strings.Contains(body, want) {
				t.Errorf("the message page lacks %q", want)
			}
		}
		if st := a.getPage("/admin/mailbox/99999999", admin).status; st != http.StatusNotFound {
			t.Errorf("an unknown e-mail -> %d, want 404", st)
		}
	})
	t.Run("customers and staff are refused", func(t *testing.T) {
		for role, token := range map[string]string{"customer": a.newUser(), "staff": a.demoToken("staff")} {
			for _, path := range []string{"/admin/mailbox", fmt.Sprintf("/admin/mailbox/%d", f.ids[1])} {
				if st := a.getPage(path, token).status; st != http.StatusForbidden {
					t.Errorf("%s %s -> %d, want 403", role, path, st)
				}
			}
		}
		if body := string(a.getPage("/admin", a.demoToken("staff")).body); strings.Contains(body, `href="/admin/mailbox"`) {
			t.Error("staff see the mailbox in the console navigation")
		}
	})
}

// mailParts are the parts of a mailbox message page that show the e-mail itself: its
// title (the subject), the HTML frame's srcdoc and the text part.
var mailParts = regexp.MustCompile(`(?s)<h1 class="page-title">(.*?)</h1>.*?srcdoc="([^"]*)".*?<pre class="mail-text">(.*?)</pre>`)

// TestMailbox_CancelledOrdersHeldMailReadsAsQueued: the development mailbox shows an
// e-mail as it was queued, whatever the order did since: the "seats held, pay by" e-mail
// of an order the buyer then cancelled keeps its subject, HTML and text byte for byte
// (its status waiting for payment and its Pay now button), and never says cancelled;
// the list's subject stays too.
func TestMailbox_CancelledOrdersHeldMailReadsAsQueued(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	buyer := a.newUser()
	no := a.orderSeats(buyer, show, seats)
	var id int64
	if err := a.DB.Get(&id, "SELECT id FROM mail_outbox WHERE order_no = ? AND kind = 'order_created'", no); err != nil {
		t.Fatal(err)
	}
	admin := a.demoToken("admin")
	page := func() []string {
		r := a.getPage(fmt.Sprintf("/admin/mailbox/%d", id), admin)
		m := mailParts.FindStringSubmatch(string(r.body))
		if r.status != http.StatusOK || m == nil {
			t.Fatalf("message page: %d\n%s", r.status, r.body)
		}
		// the row's subject cell only: its status moves from queued to held as the
		// dispatcher gets to it, whenever that is
		list := string(a.getPage("/admin/mailbox", admin).body)
		row := list[strings.Index(list, fmt.Sprintf(`id="mail-%d"`, id)):]
		row = row[strings.Index(row, `<td class="mail-subject">`):]
		return append(m[1:], row[:strings.Index(row, "</td>")])
	}
	before := page()
	if r := a.do("POST", "/api/v1/orders/"+no+"/cancel", buyer, nil, nil); r.status != http.StatusOK {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	after := page()
	for i, what := range []string{"subject", "HTML", "text", "list's subject"} {
		if before[i] != after[i] {
			t.Errorf("the %s changed after the cancel:\nbefore: %s\nafter:  %s", what, before[i], after[i])
		}
	}
	for _, want := range []string{"Status: waiting for payment", "Pay now: "} {
		if !strings.Contains(after[2], want) {
			t.Errorf("the text lacks %q:\n%s", want, after[2])
		}
	}
	if strings.Contains(after[1]+after[2], "cancelled") {
		t.Errorf("the held order's e-mail says cancelled:\n%s", after[2])
	}
}

// TestTicketCode_EmailAPIPageAndDoorAgree: the ticket e-mail of a payment shows the same
// ticket code as GET /api/v1/orders/{no} and the ticket page, in the buyer's language
// (the development mailbox shows the e-mail as sent: its text and its HTML), and that
// code typed at the door page admits this order.
func TestTicketCode_EmailAPIPageAndDoorAgree(t *testing.T) {
	a := newTestApp(t, nil)
	admin, staff := a.demoToken("admin"), a.demoToken("staff")
	show, seats := a.onSaleShow(2)
	for i, tc := range []struct{ lang, label string }{
		{"en", "Code for the door: "},
		{"zh-Hans", "入场码："},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			buyer, _ := a.registerReading(fmt.Sprintf("code%d-%d@example.test", i, time.Now().UnixNano()), tc.lang)
			no := a.orderSeats(buyer, show, seats[i:i+1])
			a.payOrder(buyer, no)
			one, _ := a.orderJSONOf(buyer, no)
			code, _ := one["ticket_code"].(string)
			if onPage := ticketCodeOn(a.getPage("/orders/"+no+"/ticket", buyer).body); code == "" || onPage != code {
				t.Fatalf("GET order: ticket_code %q, the ticket page shows %q", code, onPage)
			}
			var id int64
			if err := a.DB.Get(&id, "SELECT id FROM mail_outbox WHERE order_no = ? AND kind = 'order_paid'", no); err != nil {
				t.Fatal(err)
			}
			p := a.getPage("/admin/mailbox/"+strconv.FormatInt(id, 10), admin)
			body := html.UnescapeString(string(p.body))
			if p.status != http.StatusOK || !strings.Contains(body, tc.label+code) || !strings.Contains(body, `class="ticket-code"`) {
				t.Errorf("the mailbox's ticket e-mail (%d) lacks %q in its text or the code in its HTML", p.status, tc.label+code)
			}
			typed := strings.ToLower(strings.ReplaceAll(code, "-", ""))
			res := a.postPage("/admin/shows/"+show+"/door", "/admin/door", staff, url.Values{"ref": {typed}, "show_id": {show}})
			if door := html.UnescapeString(string(res.body)); res.status != 200 || !strings.Contains(door, `data-door-result="admitted"`) || !strings.Contains(door, no) {
				t.Errorf("the e-mail's code %q typed at the door: %d, want order %s admitted", typed, res.status, no)
			}
		})
	}
}
