// Package handlers turns HTTP requests into service calls and renders the answers: JSON
// for /api/v1 (API.md) and templ pages for the browser. A handler parses and validates,
// calls a service, and renders; it never talks to Redis or SQL.
//
// routes.go lists every route, grouped by surface and role. The files are named after
// the surface they serve:
//
//   - api_*.go: the JSON API (api_admin_*.go: its staff and admin endpoints), described
//     in openapi.json;
//   - pages_*.go: the moviegoer pages (shows, booking, orders, tickets, sign-in, the live
//     seat map, the demo payment provider's pages);
//   - console_*.go: the staff console under /admin.
//
// What they share has no prefix: deps.go (the services a handler uses, grouped by
// surface), viewmodels.go (what a service answers, copied into the views' structs),
// request.go (request context, the id parser and other parameters), auth.go (who is
// signed in and the role checks), errors.go and json_errors.go (errors in the
// contract's JSON shape or as an error page), render.go (a page's layout props,
// rendering), csrf.go, locale.go and i18n.go (the pages' language).
package handlers

import (
	"context"
	"time"

	"seatflow/jobs"
	"seatflow/services"
	"seatflow/services/accounts"
	"seatflow/services/audit"
	"seatflow/services/catalog"
	"seatflow/services/mail"
	"seatflow/services/orders"
	"seatflow/services/reconcile"
	"seatflow/services/seats"
	"seatflow/services/staff"
	"seatflow/services/waitingroom"
)

// ShowService is what the handlers need of seats.Listing: the listing, one show and its
// seat map, and the cinema's day and zone.
type ShowService interface {
	OnDate(ctx context.Context, date string, cinemaID int64) ([]*services.Show, error)
	Between(ctx context.Context, from, to time.Time) ([]*services.Show, error)
	Get(ctx context.Context, id int64) (*services.Show, error)
	SeatMap(ctx context.Context, id int64) (*seats.SeatMap, error)
	SeatMapOf(ctx context.Context, id int64, pick func(*services.Hall) []int64, userID int64) (*seats.SeatMap, error)
	SeatMapVersion(id int64) uint64
	// SeatStates is the show's hall and each seat's state in its seat order (the
	// states of SeatMap, without the owners).
	SeatStates(ctx context.Context, id int64) (*services.Hall, []string, error)
	Today() string
	Zone() *time.Location
}

// OrderService is what the handlers need of orders.Orders.
type OrderService interface {
	Create(ctx context.Context, req orders.CreateOrderRequest) (*services.Order, error)
	Get(ctx context.Context, userID int64, orderNo string) (*services.Order, error)
	List(ctx context.Context, userID int64, limit int) ([]*services.Order, error)
	Cancel(ctx context.Context, userID int64, orderNo string) (*services.Order, error)
	// Exchange moves a buyer's live order onto other seats (API.md "Exchange").
	Exchange(ctx context.Context, req orders.ExchangeRequest) (*services.Order, error)
	// ByNo reads any user's order (the demo payment page shows its deadline).
	ByNo(ctx context.Context, orderNo string) (*services.Order, error)
	HoldFor() time.Duration
}

// PaymentService is what the handlers need of orders.Payments.
type PaymentService interface {
	Start(ctx context.Context, userID int64, orderNo, provider string) (*orders.Payment, string, error)
	Payment(ctx context.Context, paymentID string) (*orders.Payment, error)
	HandleWebhook(ctx context.Context, provider string, raw []byte, signature string) (*orders.Payment, error)
	// SignatureHeader names the header a provider's webhook signature comes in.
	SignatureHeader(provider string) string
	DemoDecide(ctx context.Context, paymentID string, approve bool) (*orders.Payment, error)
	// Cancel is the buyer's cancel: a pending order cancelled, a paid one refunded
	// until its show's self-refund cut-off.
	Cancel(ctx context.Context, userID int64, orderNo string) (*services.Order, error)
}

// UserService is what the handlers need of accounts.Users.
type UserService interface {
	Register(ctx context.Context, email, password, name string) (int64, error)
	SetLang(ctx context.Context, userID int64, lang string) error
	Login(ctx context.Context, email, password string) (string, *services.User, error)
	Authenticate(ctx context.Context, token string) (*services.User, error)
	Logout(ctx context.Context, token string) error
}

// ResetService is what the handlers need of accounts.Resets: e-mailing a password
// reset link, checking one, and using it.
type ResetService interface {
	RequestReset(ctx context.Context, email, ip string) error
	CheckReset(ctx context.Context, token string) error
	ResetPassword(ctx context.Context, token, newPassword string) error
}

// LoginLimiter counts login attempts (per account email and per client address) and
// registrations (per client address).
type LoginLimiter interface {
	AllowLogin(ctx context.Context, email, ip string) error
	AllowRegister(ctx context.Context, ip string) error
}

// ReconcileService is what the handlers need of reconcile.Reconciler.
type ReconcileService interface {
	Run(ctx context.Context, opts reconcile.ReconcileOptions) (*reconcile.ReconcileRun, error)
	Runs(ctx context.Context, limit int) ([]*reconcile.ReconcileRun, error)
	RunReport(ctx context.Context, id int64) (*reconcile.ReconcileRun, error)
}

// StaffOrderService is what the handlers need of staff.StaffOrders: the order search,
// one order with its payments and history, refunds and show cancellations.
type StaffOrderService interface {
	Search(ctx context.Context, f staff.OrderSearch) ([]*staff.StaffOrder, error)
	Detail(ctx context.Context, orderNo string) (*staff.OrderDetail, error)
	Refund(ctx context.Context, actorID int64, orderNo, reason string) (*services.Order, error)
	RefundSeats(ctx context.Context, actorID int64, orderNo, reason string, seatIDs []int64) (*services.Order, error)
	CancelShow(ctx context.Context, actorID, showID int64, reason string) (*staff.ShowCancellation, error)
}

// BoxOfficeService is what the handlers need of staff.BoxOffice: sell at the counter and
// read a counter sale's receipt (nil for an online order).
type BoxOfficeService interface {
	Sell(ctx context.Context, s orders.CounterSale) (*services.Order, *orders.CounterReceipt, error)
	Quote(ctx context.Context, s orders.CounterSale) (*services.Order, error)
	Receipt(ctx context.Context, orderID int64) (*orders.CounterReceipt, error)
}

// ShiftService is what the handlers need of staff.Shifts: open, read, list and close
// the box office's shifts.
type ShiftService interface {
	Open(ctx context.Context, staffID, cinemaID, floatMinor int64, note string) (*staff.ShiftView, error)
	Get(ctx context.Context, shiftID int64) (*staff.ShiftView, error)
	Current(ctx context.Context, staffID int64) (*staff.ShiftView, error)
	List(ctx context.Context, staffID int64, limit int) ([]*staff.ShiftView, error)
	Close(ctx context.Context, actorID, shiftID, countedMinor int64, note string) (*staff.ShiftView, error)
}

// CatalogService is what the handlers need of catalog.CatalogWriter, the catalog's
// write side: movies, shows and sale control (CatalogAdminService), the console's movie
// and show pages (CatalogConsoleService), and halls with their layouts
// (HallAdminService).
type CatalogService interface {
	CatalogAdminService
	CatalogConsoleService
	HallAdminService
	CinemaAdminService
}

// UserAdminService is what the handlers need of accounts.UserAdmin.
type UserAdminService interface {
	ListUsers(ctx context.Context, f accounts.UserFilter) ([]*accounts.UserAccount, error)
	User(ctx context.Context, id int64) (*accounts.UserAccount, error)
	SetRole(ctx context.Context, actorID, userID int64, role string) (*accounts.UserAccount, error)
	Change(ctx context.Context, actorID, userID int64, ch accounts.UserChange) (*accounts.UserAccount, error)
}

// AuditService is what the handlers need of audit.Audit.
type AuditService interface {
	List(ctx context.Context, f audit.AuditFilter) ([]*audit.AuditEntry, error)
	Kinds(ctx context.Context) (actions, entities []string, err error)
}

// DashboardService is what the handlers need of staff.Dashboard.
type DashboardService interface {
	Snapshot(ctx context.Context) (*staff.DashboardSnapshot, error)
}

// ExpiryInspector reads the order expiry queue (jobs.ExpiryQueue).
type ExpiryInspector interface {
	InspectExpiry(ctx context.Context, n int) (*jobs.ExpiryQueueState, error)
}

// CatalogConsoleService is what the console's movie and show pages and the movie
// endpoints need of catalog.CatalogWriter beyond CatalogAdminService.
type CatalogConsoleService interface {
	MovieSummaries(ctx context.Context) ([]*catalog.MovieSummary, error)
	MovieSummary(ctx context.Context, id int64) (*catalog.MovieSummary, error)
	UpdateMovie(ctx context.Context, actorID, id int64, title string, runtimeMin int) (*catalog.MovieSummary, error)
	RetireMovie(ctx context.Context, actorID, id int64) (*catalog.MovieSummary, error)
	UnretireMovie(ctx context.Context, actorID, id int64) (*catalog.MovieSummary, error)
	CreateDaily(ctx context.Context, actorID int64, in catalog.LocalShow) ([]catalog.DayResult, error)
	Show(ctx context.Context, id int64) (*services.Show, error)
	SeatCounts(ctx context.Context, shows []*services.Show) (map[int64]catalog.SeatCounts, error)
}

// ShowSeatService is what the handlers need of staff.ShowSeats: a show's seat map for
// staff, house seats and the release of a stuck hold.
type ShowSeatService interface {
	Map(ctx context.Context, showID int64) (*staff.StaffSeatMap, error)
	Block(ctx context.Context, actorID, showID int64, seatIDs []int64, reason string) (*staff.HouseChange, error)
	Unblock(ctx context.Context, actorID, showID int64, seatIDs []int64, reason string) (*staff.HouseChange, error)
	Release(ctx context.Context, actorID, showID, seatID int64, orderNo, reason string) (*staff.SeatRelease, error)
}

// TicketService signs and checks the ticket references of paid orders and gives their
// short codes (orders.Tickets).
type TicketService interface {
	Ref(o *services.Order) string
	Verify(ref string, o *services.Order) bool
	Code(ctx context.Context, o *services.Order) (string, error)
}

// WaitingRoomService is what the handlers need of waitingroom.Rooms.
type WaitingRoomService interface {
	Join(ctx context.Context, showID, userID int64) (*waitingroom.Entry, error)
	Read(ctx context.Context, showID, userID int64) (*waitingroom.Entry, error)
	ReadPlace(ctx context.Context, showID, userID int64, place string) (*waitingroom.Entry, error)
	Stats(ctx context.Context, showID int64) (*waitingroom.Stats, error)
}

// RoomMoves tells a waiting buyer's event stream that their room moved
// (waitingroom.Moves).
type RoomMoves interface {
	Watch(showID int64) (<-chan struct{}, func())
}

// AdmissionChecker checks a waiting room's admission token (waitingroom.Tokens).
type AdmissionChecker interface {
	Valid(token string, userID, showID int64, roomEpoch int, now time.Time) bool
}

// Deps are the services the handlers call, grouped by the surface that uses them: the
// JSON API, the moviegoer pages, the staff console, and what they share. The groups are
// embedded, so a handler names a service (d.Shows, d.Catalog) whatever its group.
type Deps struct {
	SharedDeps
	BuyerDeps
	APIDeps
	PageDeps
	StaffDeps
	ConsoleDeps
	// seatMaps caches each show's encoded seat map for the API (api_seatmap_cache.go).
	seatMaps seatMapCache
}

// SharedDeps are what every surface uses: sign-in, the shows, the waiting rooms and
// waiting lists, the clock and the cookie policy.
type SharedDeps struct {
	Shows ShowService
	// Cinemas reads the install's cinemas (names, time zones, currencies).
	Cinemas CinemaReader
	Users   UserService
	// Clock is the clock the services decide deadlines by (nil: the system clock); the
	// pages that show a deadline count down from its now, never the client's clock.
	Clock services.Clock
	// SecureCookies marks the session cookie Secure (set behind HTTPS).
	SecureCookies bool
	// Rooms are the shows' waiting rooms.
	Rooms WaitingRoomService
	// Waitlist keeps the waiting lists of sold-out shows.
	Waitlist WaitlistService
	// TicketTypes lists the ticket types (names, door notes); nil: shows name theirs by code.
	TicketTypes TicketTypeReader
}

// BuyerDeps are what a moviegoer's requests use, through the JSON API and the pages
// alike: orders, payments, tickets, the sign-in limits and password resets.
type BuyerDeps struct {
	Orders   OrderService
	Payments PaymentService
	Limiter  LoginLimiter
	// Tickets signs the tickets of paid orders and checks them.
	Tickets TicketService
	// Resets e-mail password reset links and use them (rate-limited inside).
	Resets ResetService
}

// APIDeps are what only the JSON API uses.
type APIDeps struct {
	// Moves tells a waiting room's event streams that it moved.
	Moves RoomMoves
}

// PageDeps are what only the moviegoer pages use.
type PageDeps struct {
	// CinemaName is the cinema's name, the location of the calendar files of paid
	// orders (SEATFLOW_CINEMA_NAME; "" reads "seatflow").
	CinemaName string
	// Live streams seat changes to the viewers of a show (nil: no live map).
	Live LiveService
	// SessionMaxAge is the session cookie's lifetime (0: the default policy's).
	SessionMaxAge time.Duration
	// Admission checks the admission cookie before the seat map is shown.
	Admission AdmissionChecker
}

// StaffDeps are the staff services the console and the JSON API's staff and admin
// endpoints both use.
type StaffDeps struct {
	// Catalog writes the catalog: movies, shows, sale control, halls and layouts.
	Catalog CatalogService
	// StaffOrders searches orders, reads one with its history, refunds and cancels.
	StaffOrders StaffOrderService
	// UserAdmin lists accounts and changes roles for admins.
	UserAdmin UserAdminService
	// Audit lists the audit log for staff and admins.
	Audit AuditService
	// Reconcile runs the reconciliation and lists its runs.
	Reconcile ReconcileService
	// ShowSeats is a show's seat map for staff: house seats, release of a stuck hold.
	ShowSeats ShowSeatService
	// Door checks tickets and admits their holders, at most once each.
	Door DoorService
	// Scopes reads the cinemas staff work for and the cinema of what a route names (nil:
	// no one is limited).
	Scopes CinemaScopeService
	// Prices writes ticket types and price cards and applies cards to shows.
	Prices PriceAdminService
	// Vouchers creates, changes and lists promo codes, and prices a buyer's seats with one.
	Vouchers VoucherService
	// Reports reads the sales reports (reports.Reports).
	Reports ReportService
	// BoxOffice sells at the counter; Shifts keeps the counter's shifts and cash-ups
	// (nil: no box office).
	BoxOffice BoxOfficeService
	Shifts    ShiftService
}

// ConsoleDeps are what only the staff console uses.
type ConsoleDeps struct {
	// Currency is the cinema's currency (ISO 4217), for the console's amounts and forms.
	Currency string
	// Dashboard and ExpiryQueue feed the console's dashboard.
	Dashboard   DashboardService
	ExpiryQueue ExpiryInspector
	// Mailbox is the development mailbox: the e-mail outbox for admins (mail.Mailbox).
	Mailbox MailboxService
}

// MailboxService is what the development mailbox page needs of mail.Mailbox.
type MailboxService interface {
	List(ctx context.Context, f mail.ListFilter) ([]*mail.Row, error)
	Subjects(ctx context.Context, rows []*mail.Row) map[int64]string
	Message(ctx context.Context, id int64) (row *mail.Row, r *mail.Rendered, renderErr error, err error)
	OrderNow(ctx context.Context, row *mail.Row) string
}
