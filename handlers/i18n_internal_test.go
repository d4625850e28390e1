package handlers

import (
	"strings"
	"testing"

	"seatflow/services"
	"seatflow/views"
)

// TestServiceText_ChineseNamesTheSeatLeftAlone: a SINGLE_SEAT_GAP shown in Chinese says
// which seat the choice leaves alone, as the English message does; other errors keep
// the code's sentence.
func TestServiceText_ChineseNamesTheSeatLeftAlone(t *testing.T) {
	gap := &services.Error{Code: services.CodeSingleSeatGap, Seats: []string{"F8"}, Message: "these seats would leave F8 as a single empty seat"}
	if got := serviceText(views.ZhHans, gap, gap.Message); !strings.Contains(got, "F8") || !strings.Contains(got, "单独空座") {
		t.Errorf("Chinese: %q", got)
	}
	if got := serviceText(views.En, gap, gap.Message); got != gap.Message {
		t.Errorf("English: %q", got)
	}
	taken := &services.Error{Code: services.CodeSeatTaken, Seats: []string{"A1"}}
	if got := serviceText(views.ZhHans, taken, ""); strings.Contains(got, "A1") {
		t.Errorf("another code gained the seat: %q", got)
	}
}
