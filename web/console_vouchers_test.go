package web

import (
	"net/url"
	"strings"
	"testing"
)

// TestConsoleVouchers_Forms: staff add a voucher and a batch through the console's
// forms (the window typed in the cinema's zone, stored in UTC), see a bad form again
// with what was wrong and nothing added, and open the batch's CSV link. Amounts are typed in the
// cinema's currency ("10" is 1000 minor units).
func TestConsoleVouchers_Forms(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	var cinema, zone string
	if err := a.DB.QueryRow("SELECT CAST(id AS CHAR), time_zone FROM cinemas ORDER BY id LIMIT 1").Scan(&cinema, &zone); err != nil {
		t.Fatal(err)
	}
	form := url.Values{"code": {"winter-10"}, "cinema_id": {cinema}, "max_uses": {"20"}, "rule": {"amount"}, "value": {"10"},
		"v-from_date": {"2026-12-24"}, "v-from_time": {"9:00"}, "ticket_types": {"adult"}}
	r := a.postPage("/admin/vouchers", "/admin/vouchers", staff, form)
	if r.status != 303 || !strings.HasPrefix(r.header.Get("Location"), "/admin/vouchers/WINTER-10") {
		t.Fatalf("add: %d %s %.300s", r.status, r.header.Get("Location"), r.body)
	}
	v := a.do("GET", "/api/v1/admin/vouchers/WINTER-10", staff, nil, nil).json(t)
	if v["amount_off_minor"] != 1000.0 || v["max_uses"] != 20.0 || v["valid_from"] == nil {
		t.Errorf("added %v", v)
	}
	if zone == "Asia/Shanghai" && v["valid_from"] != "2026-12-24T01:00:00Z" {
		t.Errorf("valid_from %v, want 09:00 in Shanghai", v["valid_from"])
	}
	for name, bad := range map[string]url.Values{
		"taken":             {"code": {"WINTER-10"}, "cinema_id": {cinema}, "max_uses": {"1"}, "rule": {"percent"}, "value": {"5"}},
		"percent 150":       {"code": {"HOT-150"}, "cinema_id": {cinema}, "max_uses": {"1"}, "rule": {"percent"}, "value": {"150"}},
		"bad date":          {"code": {"DATE-1"}, "cinema_id": {cinema}, "max_uses": {"1"}, "rule": {"percent"}, "value": {"5"}, "v-until_date": {"24/12/2026"}},
		"no value":          {"code": {"NOVAL"}, "cinema_id": {cinema}, "max_uses": {"1"}, "rule": {"percent"}},
		"unknown show":      {"code": {"SHOWS-1"}, "cinema_id": {cinema}, "max_uses": {"1"}, "rule": {"percent"}, "value": {"5"}, "show_ids": {"999999"}},
		"a third of a cent": {"code": {"CENTS-1"}, "cinema_id": {cinema}, "max_uses": {"1"}, "rule": {"amount"}, "value": {"5.505"}},
		"minus five":        {"code": {"MINUS-5"}, "cinema_id": {cinema}, "max_uses": {"1"}, "rule": {"price"}, "value": {"-5"}},
		"percent 12.5":      {"code": {"HALF-1"}, "cinema_id": {cinema}, "max_uses": {"1"}, "rule": {"percent"}, "value": {"12.5"}},
		"unknown cinema":    {"code": {"NOWHERE-1"}, "cinema_id": {"999999"}, "max_uses": {"1"}, "rule": {"amount"}, "value": {"5"}},
	} {
		t.Run(name, func(t *testing.T) {
			before := a.count("SELECT COUNT(*) FROM vouchers")
			r := a.postPage("/admin/vouchers", "/admin/vouchers", staff, bad)
			if r.status < 400 || r.status >= 500 || !strings.Contains(string(r.body), `role="alert"`) {
				t.Errorf("-> %d, want the form again with what was wrong", r.status)
			}
			if after := a.count("SELECT COUNT(*) FROM vouchers"); after != before {
				t.Errorf("vouchers %d -> %d", before, after)
			}
		})
	}
	r = a.postPage("/admin/vouchers", "/admin/vouchers/batch", staff, url.Values{"batch": {"Gala night"}, "prefix": {"gala"}, "count": {"5"},
		"cinema_id": {cinema}, "rule": {"price"}, "value": {"0"}})
	if r.status != 303 {
		t.Fatalf("batch: %d %.300s", r.status, r.body)
	}
	p := a.getPage(r.header.Get("Location"), staff)
	if p.status != 200 || strings.Count(string(p.body), ">GALA-") != 5 || !strings.Contains(string(p.body), "/api/v1/admin/vouchers/batch/Gala%20night.csv") {
		t.Errorf("the batch's list: %d", p.status)
	}
	if csv := a.getPage("/api/v1/admin/vouchers/batch/Gala%20night.csv", staff); csv.status != 200 || strings.Count(string(csv.body), "GALA-") != 5 {
		t.Errorf("CSV by the session: %d %.200s", csv.status, csv.body)
	}
}
