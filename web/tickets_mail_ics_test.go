package web

import (
	"fmt"
	"strings"
	"testing"
)

// TestTicketTypes_MailAndCalendarNameEachSeatsType: the order's e-mail (in the mailbox)
// and its calendar file, in English and Chinese, name the type of a child seat beside
// its label; the adult seat reads as before.
func TestTicketTypes_MailAndCalendarNameEachSeatsType(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	if r := a.do("POST", "/api/v1/admin/ticket-types", staff, map[string]any{"code": "child", "name": "Child", "name_zh": "儿童"}, nil); r.status != 201 {
		t.Fatalf("create child: %d %s", r.status, r.body)
	}
	show := a.showInHall("Hall 1")
	zone := a.do("GET", "/api/v1/shows/"+show, "", nil, nil).json(t)["zones"].([]any)[0].(map[string]any)["code"].(string)
	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"ticket_prices": []map[string]any{{"type": "child", "zone": zone, "price_minor": 2000}}}, nil); r.status != 200 {
		t.Fatalf("price child: %d %s", r.status, r.body)
	}
	row, ids := a.freeRow(show)
	buyer := a.newUser()
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", buyer, map[string]any{"seat_ids": []string{ids[row+"1"], ids[row+"2"]}, "tickets": map[string]string{ids[row+"1"]: "child"}}, nil)
	if r.status != 201 {
		t.Fatalf("order: %d %s", r.status, r.body)
	}
	no := r.json(t)["order_no"].(string)
	var id int64
	if err := a.DB.Get(&id, "SELECT id FROM mail_outbox WHERE order_no = ? AND kind = 'order_created'", no); err != nil {
		t.Fatal(err)
	}
	if body := string(a.getPage(fmt.Sprintf("/admin/mailbox/%d", id), a.demoToken("admin")).body); !strings.Contains(body, row+"1 (Child)") || strings.Contains(body, row+"2 (") {
		t.Errorf("the e-mail does not name the child seat's type:\n%s", body)
	}
	a.payOrder(buyer, no)
	for lang, want := range map[string]string{"en": row + "1 (Child)", "zh-Hans": row + "1 (儿童)"} {
		r := a.do("GET", "/orders/"+no+"/calendar.ics", "", nil, map[string]string{"Cookie": "sf_session=" + buyer + "; sf_lang=" + lang})
		if r.status != 200 || !strings.Contains(strings.ReplaceAll(string(r.body), "\r\n ", ""), want) {
			t.Errorf("%s calendar: %d, want %q in\n%s", lang, r.status, want, r.body)
		}
	}
}
