package staff_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/orders"
	"seatflow/services/staff"
)

// TestDoor_AdmitsByTicketCode: the ticket's short code, typed in lower case with spaces,
// admits like the signed reference; a code with a wrong check character is NOT_FOUND
// saying so; an unknown code is NOT_FOUND; another show's door refuses a good code.
func TestDoor_AdmitsByTicketCode(t *testing.T) {
	e := newDoorEnv(t)
	ctx := context.Background()
	o := e.paid("C1")
	code, err := e.tickets.Code(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	other := e.MakeShow(e.Show.HallID, services.ShowOnSale, e.Clock.Now().Add(-time.Hour), e.Clock.Now().Add(120*time.Hour))
	wrong := code[:9] + map[bool]string{true: "1", false: "0"}[code[9] == '0']
	unknown := "0000000000"
	if _, err := e.door.Check(ctx, unknown); services.ErrorCode(err) != services.CodeNotFound {
		t.Errorf("an unknown code: %v", err)
	}
	if _, err := e.door.Admit(ctx, e.staffID, wrong, staff.DoorScope{}); services.ErrorCode(err) != services.CodeNotFound ||
		!strings.Contains(err.Error(), "check character does not match: mistyped?") {
		t.Errorf("a mistyped code: %v, want NOT_FOUND saying the check character does not match", err)
	}
	typed := strings.ToLower(code[:3] + " " + code[3:6] + " " + code[6:])
	if _, err := e.door.Admit(ctx, e.staffID, typed, staff.DoorScope{ShowID: other.ID}); services.ErrorCode(err) != services.CodeWrongShow {
		t.Errorf("another show's door: %v, want WRONG_SHOW", err)
	}
	tk, err := e.door.Admit(ctx, e.staffID, typed, staff.DoorScope{ShowID: e.Show.ID})
	if err != nil || tk.Order.OrderNo != o.OrderNo || tk.AdmittedAt == nil {
		t.Fatalf("admit by code %q: %+v, %v", typed, tk, err)
	}
	if _, err := e.door.Admit(ctx, e.staffID, orders.FormatTicketCode(code), staff.DoorScope{}); services.ErrorCode(err) != services.CodeAlreadyAdmitted {
		t.Errorf("the code again: %v, want ALREADY_ADMITTED", err)
	}
}
