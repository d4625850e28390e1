package web

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestCalendar_PaidOrderOwnerGetsICS: a paid order's owner gets its calendar file
// (text/calendar, CRLF lines, the order's UID, the show's title, start and end in UTC),
// linked from the order page and the ticket page; a pending order, another buyer and an
// unknown order get 404, and a signed-out visitor is sent to sign in.
func TestCalendar_PaidOrderOwnerGetsICS(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(1)
	buyer, other := a.newUser(), a.newUser()
	no := a.orderSeats(buyer, show, seats)
	url := "/orders/" + no + "/calendar.ics"
	if r := a.getPage(url, buyer); r.status != 404 {
		t.Errorf("calendar of a pending order: %d, want 404", r.status)
	}
	a.payOrder(buyer, no)

	r := a.getPage(url, buyer)
	body := string(r.body)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/calendar") {
		t.Fatalf("calendar of a paid order: %d %s\n%s", r.status, r.header.Get("Content-Type"), body)
	}
	var v struct {
		Movie    struct{ Title string }
		StartsAt string `json:"starts_at"`
	}
	if err := jsonOf(a.do("GET", "/api/v1/shows/"+show, "", nil, nil), &v); err != nil {
		t.Fatal(err)
	}
	start := strings.NewReplacer("-", "", ":", "").Replace(v.StartsAt) // 2026-11-30T11:40:00Z -> 20261130T114000Z
	unfolded := strings.ReplaceAll(body, "\r\n ", "")
	for _, want := range []string{"BEGIN:VCALENDAR\r\n", "UID:" + no + "@seatflow\r\n", "DTSTART:" + start + "\r\n", "SUMMARY;LANGUAGE=en:" + v.Movie.Title, "LOCATION:seatflow\r\n", "END:VCALENDAR\r\n"} {
		if !strings.Contains(unfolded, want) {
			t.Errorf("no %q in the calendar file:\n%s", want, body)
		}
	}
	for _, page := range []string{"/orders/" + no, "/orders/" + no + "/ticket"} {
		if p := a.getPage(page, buyer); !strings.Contains(string(p.body), `href="`+url+`"`) {
			t.Errorf("%s has no link to %s", page, url)
		}
	}
	for who, tok := range map[string]string{"another buyer": other} {
		if r := a.getPage(url, tok); r.status != 404 {
			t.Errorf("%s: %d, want 404", who, r.status)
		}
	}
	if r := a.getPage("/orders/NOSUCHORDER/calendar.ics", buyer); r.status != 404 {
		t.Errorf("unknown order: %d, want 404", r.status)
	}
	if r := a.getPage(url, ""); r.status != 303 && r.status != 302 {
		t.Errorf("signed out: %d, want a redirect to sign in", r.status)
	}
}

// jsonOf decodes r's body into v.
func jsonOf(r apiResp, v any) error { return json.Unmarshal(r.body, v) }

// TestCalendar_BuyersLanguageAndNoControlCharacters: a buyer reading Chinese gets the
// calendar file in Chinese (SUMMARY and DESCRIPTION, with LANGUAGE=zh-Hans), an
// English one in English; a movie title and hall name holding VT, FF, DEL and C1
// characters (stored before inputs refused them) reach the file without them.
func TestCalendar_BuyersLanguageAndNoControlCharacters(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(1)
	buyer := a.newUser()
	no := a.orderSeats(buyer, show, seats)
	a.payOrder(buyer, no)
	if _, err := a.DB.Exec(`UPDATE movies m JOIN shows s ON s.movie_id = m.id SET m.title = CONCAT('Dune', X'0B0C', 'Two', X'7F', ?) WHERE s.id = ?`,
		"\u0085\u009b!", show); err != nil {
		t.Fatal(err)
	}
	sid, _ := strconv.ParseInt(show, 10, 64)
	a.Catalog.ForgetShow(sid)
	get := func(lang string) string {
		r := a.do("GET", "/orders/"+no+"/calendar.ics", "", nil, map[string]string{"Cookie": "sf_session=" + buyer + "; sf_lang=" + lang})
		if r.status != 200 {
			t.Fatalf("%s calendar: %d", lang, r.status)
		}
		return string(r.body)
	}
	zh, en := get("zh-Hans"), get("en")
	for lang, body := range map[string]string{"zh-Hans": zh, "en": en} {
		for i, r := range strings.ReplaceAll(body, "\r\n", "") {
			if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
				t.Errorf("%s: control %U at %d in\n%q", lang, r, i, body)
				break
			}
		}
	}
	unfolded := strings.ReplaceAll(zh, "\r\n ", "")
	for _, want := range []string{"SUMMARY;LANGUAGE=zh-Hans:《DuneTwo!》· ", "DESCRIPTION;LANGUAGE=zh-Hans:影厅：", `\n座位 `, `\n订单 ` + no} {
		if !strings.Contains(unfolded, want) {
			t.Errorf("the Chinese buyer's file lacks %q:\n%s", want, zh)
		}
	}
	unfolded = strings.ReplaceAll(en, "\r\n ", "")
	for _, want := range []string{"SUMMARY;LANGUAGE=en:DuneTwo! · ", "DESCRIPTION;LANGUAGE=en:Hall: ", `\nSeats `, `\nOrder ` + no} {
		if !strings.Contains(unfolded, want) {
			t.Errorf("the English buyer's file lacks %q:\n%s", want, en)
		}
	}
}
