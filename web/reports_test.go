package web

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// salesReport is GET /api/v1/admin/reports/sales's JSON.
type salesReport struct {
	Rows []struct {
		Key, Label, Currency string
		Orders, Seats        int64
		Gross                int64 `json:"gross_minor"`
		Discount             int64 `json:"discount_minor"`
		Refunded             int64 `json:"refunded_minor"`
		Net                  int64 `json:"net_minor"`
	}
	Totals           salesTotals
	TotalsByCurrency []salesTotals `json:"totals_by_currency"`
}

type salesTotals struct {
	Orders, Seats int64
	Gross         *int64 `json:"gross_minor"`
	Discount      *int64 `json:"discount_minor"`
	Refunded      *int64 `json:"refunded_minor"`
	Net           *int64 `json:"net_minor"`
	Currency      *string
}

// TestSalesReport_HTTP: the sales report over HTTP around the fixture's paid order of
// cinema A: for every by, the CSV (text/csv, a file name, the header) holds the JSON's
// rows and a totals line per currency; refusals are 400 (by, dates, range, format,
// cinema_id) and 403 (a limited staff member asking for another cinema), in the
// contract's shape; a limited staff member's report without cinema_id leaves A out; the
// console page and its CSV link answer; the dashboard's JSON has today's online order.
func TestSalesReport_HTTP(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.cinemaFixture()
	from, to := a.localDate(-1), a.localDate(1)
	base := "/api/v1/admin/reports/sales?from=" + from + "&to=" + to
	for _, by := range []string{"day", "show", "movie", "ticket_type", "channel"} {
		t.Run("csv equals json by "+by, func(t *testing.T) {
			r := a.do("GET", base+"&by="+by, f.admin, nil, nil)
			var rep salesReport
			if r.status != 200 || json.Unmarshal(r.body, &rep) != nil {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if len(rep.Rows) == 0 || rep.Totals.Orders < 1 || rep.Totals.Seats < 1 {
				t.Fatalf("the paid order is missing: %s", r.body)
			}
			var want [][]string
			want = append(want, []string{"key", "label", "orders", "seats", "gross_minor", "discount_minor", "refunded_minor", "net_minor", "currency"})
			i := func(v int64) string { return strconv.FormatInt(v, 10) }
			for _, row := range rep.Rows {
				want = append(want, []string{row.Key, row.Label, i(row.Orders), i(row.Seats), i(row.Gross), i(row.Discount), i(row.Refunded), i(row.Net), row.Currency})
				if row.Net != row.Gross-row.Discount-row.Refunded {
					t.Errorf("row %s: net %d", row.Key, row.Net)
				}
			}
			for _, tot := range rep.TotalsByCurrency {
				want = append(want, []string{"", "Total", i(tot.Orders), i(tot.Seats), i(*tot.Gross), i(*tot.Discount), i(*tot.Refunded), i(*tot.Net), *tot.Currency})
			}
			c := a.do("GET", base+"&by="+by+"&format=csv", f.admin, nil, nil)
			if c.status != 200 || !strings.HasPrefix(c.header.Get("Content-Type"), "text/csv") {
				t.Fatalf("csv: %d %s %s", c.status, c.header.Get("Content-Type"), c.body)
			}
			if cd, name := c.header.Get("Content-Disposition"), "sales-"+by+"-"+from+"-"+to+".csv"; !strings.Contains(cd, `filename="`+name+`"`) {
				t.Errorf("Content-Disposition %q, want the file %s", cd, name)
			}
			got, err := csv.NewReader(strings.NewReader(string(c.body))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("csv\n%v\nwant\n%v", got, want)
			}
		})
	}
	for _, tc := range []struct {
		name, query, token, code string
		status                   int
	}{
		{"unknown by", "from=" + from + "&to=" + to + "&by=hall", f.admin, "INVALID_REQUEST", 400},
		{"from after to", "from=" + to + "&to=" + from, f.admin, "INVALID_REQUEST", 400},
		{"bad date", "from=2026-13-01&to=" + to, f.admin, "INVALID_REQUEST", 400},
		{"no dates", "by=day", f.admin, "INVALID_REQUEST", 400},
		{"over 366 days", "from=2025-01-01&to=2026-12-31", f.admin, "INVALID_REQUEST", 400},
		{"unknown format", "from=" + from + "&to=" + to + "&format=xlsx", f.admin, "INVALID_REQUEST", 400},
		{"bad cinema_id", "from=" + from + "&to=" + to + "&cinema_id=x", f.admin, "INVALID_REQUEST", 400},
		{"another cinema", "from=" + from + "&to=" + to + "&cinema_id=" + f.cinemaA, f.limited, "FORBIDDEN", 403},
		{"another cinema as csv", "from=" + from + "&to=" + to + "&cinema_id=" + f.cinemaA + "&format=csv", f.limited, "FORBIDDEN", 403},
		{"no such cinema", "from=" + from + "&to=" + to + "&cinema_id=999999", f.admin, "NOT_FOUND", 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do("GET", "/api/v1/admin/reports/sales?"+tc.query, tc.token, nil, nil)
			if r.status != tc.status || r.code() != tc.code {
				t.Errorf("-> %d %s, want %d %s", r.status, r.body, tc.status, tc.code)
			}
		})
	}
	t.Run("limited staff see their cinema only", func(t *testing.T) {
		for _, q := range []string{"", "&cinema_id=" + f.cinemaB} {
			r := a.do("GET", base+q, f.limited, nil, nil)
			var rep salesReport
			if r.status != 200 || json.Unmarshal(r.body, &rep) != nil {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if len(rep.Rows) != 0 || rep.Totals.Orders != 0 || rep.Totals.Currency == nil || *rep.Totals.Currency != "CNY" {
				t.Errorf("cinema B sold nothing, yet %s", r.body)
			}
		}
	})
	t.Run("console page and its CSV", func(t *testing.T) {
		q := url.Values{"from": {from}, "to": {to}, "by": {"channel"}}
		body := a.pageBody("/admin/reports?"+q.Encode(), f.admin)
		for _, want := range []string{"Sales reports", "Online", "Download CSV", "/admin/reports/sales.csv?"} {
			if !strings.Contains(body, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
		if st := a.page("/admin/reports/sales.csv?"+q.Encode(), f.admin); st != http.StatusOK {
			t.Errorf("console CSV -> %d", st)
		}
		if st := a.page("/admin/reports?from="+from+"&to="+to+"&cinema_id="+f.cinemaA, f.limited); st != http.StatusForbidden {
			t.Errorf("another cinema's report page -> %d, want 403", st)
		}
		if st := a.page("/admin/reports?from="+to+"&to="+from, f.admin); st != http.StatusBadRequest {
			t.Errorf("from after to -> %d, want 400", st)
		}
		if st := a.page("/admin/reports", f.admin); st != http.StatusOK {
			t.Errorf("the page without a query -> %d, want 200 (the last seven days)", st)
		}
	})
	t.Run("dashboard channels today", func(t *testing.T) {
		r := a.do("GET", "/api/v1/admin/dashboard", f.admin, nil, nil)
		var d struct {
			ChannelsToday []struct {
				Channel, Currency string
				Orders, Seats     int64
			} `json:"channels_today"`
		}
		if r.status != 200 || json.Unmarshal(r.body, &d) != nil {
			t.Fatalf("%d %s", r.status, r.body)
		}
		var online, counter int64 = -1, -1
		for _, c := range d.ChannelsToday {
			switch c.Channel {
			case "online":
				online = c.Orders
			case "box_office":
				counter = c.Orders
			}
		}
		if online < 1 || counter != 0 {
			t.Errorf("channels today %+v: want the paid order online, none at the box office", d.ChannelsToday)
		}
		if body := a.pageBody("/admin", f.admin); !strings.Contains(body, "Today online and at the box office") {
			t.Errorf("the console dashboard lacks the channels panel")
		}
	})
}
