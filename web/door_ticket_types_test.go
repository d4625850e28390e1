package web

import (
	"html"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestDoor_AndStaffOrderNameEachSeatsTypeWithItsNote: a paid order of a child seat and
// an adult seat, admitted at the door, lists each seat with the child seat's type and
// its door note beside it (the adult seat plain); the staff's order page names each
// seat's type and the child's note.
func TestDoor_AndStaffOrderNameEachSeatsTypeWithItsNote(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	show, _, _, s1, s2 := a.childShow(t, 2500)
	buyer := a.newUser()
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", buyer, map[string]any{"seat_ids": []string{s1, s2}, "tickets": map[string]string{s1: "child"}}, nil)
	if r.status != 201 {
		t.Fatalf("order: %d %s", r.status, r.body)
	}
	no := r.json(t)["order_no"].(string)
	a.payOrder(buyer, no)
	labels := a.seatLabels(show, []string{s1, s2})
	ref := ticketRefOn(a.getPage("/orders/"+no, buyer).body)
	door := "/admin/shows/" + show + "/door"
	res := a.postPage(door, "/admin/door", staff, url.Values{"ref": {ref}, "show_id": {show}})
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(res.body)))
	if res.status != 200 || err != nil {
		t.Fatalf("admit: %d %v", res.status, err)
	}
	seats := doc.Find(".door-result-seats li")
	if seats.Length() != 2 {
		t.Fatalf("the door lists %d seats: %s", seats.Length(), html.UnescapeString(string(res.body)))
	}
	for i, want := range []string{"Child — ID required at the door", ""} {
		li := seats.Eq(i)
		if got := strings.TrimSpace(li.Find(".door-seat").Text()); got != labels[i] {
			t.Errorf("door seat %d is %q, want %s", i, got, labels[i])
		}
		if got := strings.Join(strings.Fields(li.Find(".door-seat-type").Text()), " "); got != want {
			t.Errorf("door seat %s reads %q, want %q", labels[i], got, want)
		}
	}
	body := html.UnescapeString(string(a.getPage("/admin/orders/"+no, staff).body))
	if !strings.Contains(body, "Child") || !strings.Contains(body, "— ID required at the door") || !strings.Contains(body, "Adult") {
		t.Errorf("the staff's order page does not name the types and the child's note")
	}
}
