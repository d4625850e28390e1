package views

import "seatflow/services"

// SeatStateHouse is the state of a house seat: blocked by staff for one show (the staff
// package's StateHouse), beside the services.State* states.
const SeatStateHouse = "house"

// StaffSeatMap is a show's seat map for staff: the show and its hall, every seat in
// hall order, the seats per state, and whether staff may change house seats.
type StaffSeatMap struct {
	Show     *services.Show
	Hall     *services.Hall
	Seats    []StaffSeat
	Counts   map[string]int
	Editable bool
}

// StaffSeat is one seat of the staff seat map: its State (services.State* or
// SeatStateHouse), the order holding or owning it with that order's status and buyer,
// the database's state and order where they differ from the seat cache's (Mismatch says
// how), whether it is a stuck hold, and whether staff may release it.
type StaffSeat struct {
	services.Seat
	State       string
	OrderNo     string
	OrderStatus string
	BuyerEmail  string
	DBState     string
	DBOrderNo   string
	Mismatch    string
	Stuck       bool
	Cancellable bool
}

// DoorCount is how many seats (people) of the door's shows' paid orders were admitted, of how many.
type DoorCount struct {
	Admitted int
	Seats    int
}
