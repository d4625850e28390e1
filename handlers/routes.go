package handlers

import (
	"github.com/gofiber/fiber/v2"

	"seatflow/services"
)

// Routes registers every route of the app's three surfaces, read top to bottom by who
// may call them:
//
//   - the JSON API under /api/v1 (api_*.go; API.md, handlers/openapi.json),
//   - the moviegoer pages (pages_*.go): server-rendered HTML forms that work without
//     JavaScript,
//   - the staff console under /admin (console_*.go).
//
// Each surface lists its anonymous routes, then the signed-in customer's, then staff's,
// then admins'. A role check is attached once per group: a path prefix (Group) runs it
// for every request below that prefix, known route or not; a set of routes that shares
// no prefix of its own (signedIn) puts it in front of each of its routes only.
//
// The middleware every request passes first (security headers, language, demo
// payments, Authenticate, CSRF) and the static files and operations endpoints are set
// up in web/app.go before Routes is called. Within a group, a literal segment is listed
// before a parameter in the same place (/halls/new before /halls/:id): Fiber takes the
// first route that matches.
func (d *Deps) Routes(app fiber.Router) {
	d.apiRoutes(app)
	d.pageRoutes(app)
	d.consoleRoutes(app)
}

// apiRoutes registers the JSON API under /api/v1. Errors answer in the contract's JSON
// shape (ErrorHandler); there is no catch-all: an address without a route reaches the
// error handler as 404 NOT_FOUND, and routes registered later still work.
func (d *Deps) apiRoutes(app fiber.Router) {
	v1 := app.Group("/api/v1")

	// anyone
	v1.Get("/openapi.json", apiOpenAPI)
	v1.Post("/auth/register", d.apiRegister)
	v1.Post("/auth/login", d.apiLogin)
	v1.Post("/auth/password-reset", d.apiPasswordReset) // 202 whether or not the account exists
	v1.Post("/auth/password-reset/confirm", d.apiPasswordResetConfirm)
	v1.Get("/cinemas", d.apiCinemas)
	v1.Get("/shows", d.apiShows) // ?date= &cinema_id=
	v1.Get("/shows/:id", d.apiShow)
	v1.Get("/shows/:id/seats", d.apiSeats)               // signed in: the current map, no lag
	v1.Post("/payments/:provider/webhook", d.apiWebhook) // signed by the provider

	// a signed-in user (401 UNAUTHENTICATED otherwise)
	user := signedIn(v1, RequireUser)
	user.Post("/auth/logout", d.apiLogout)
	user.Post("/shows/:id/orders", d.apiCreateOrder) // Admission-Token when the show's waiting room is on
	user.Post("/shows/:id/queue", d.apiJoinQueue)
	user.Get("/shows/:id/queue", d.apiQueue)
	user.Get("/shows/:id/voucher", d.apiVoucherQuote) // ?code= &seats= : what a code saves before booking
	user.Get("/shows/:id/queue/events", d.apiQueueEvents)
	user.Post("/shows/:id/waitlist", d.apiJoinWaitlist)
	user.Get("/shows/:id/waitlist", d.apiWaitlist)
	user.Delete("/shows/:id/waitlist", d.apiLeaveWaitlist)
	user.Get("/orders", d.apiOrders)
	user.Get("/orders/:no", d.apiOrder)
	user.Post("/orders/:no/cancel", d.apiCancel)
	user.Post("/orders/:no/exchange", d.apiExchange)
	user.Post("/orders/:no/pay", d.apiPay)

	// staff and admins, on every path below /api/v1/admin (anonymous 401, customers 403;
	// staff limited to cinemas 403 on another cinema's hall, show, order or ticket)
	staff := v1.Group("/admin", RequireRole(services.RoleStaff, services.RoleAdmin), d.guardCinema("/api/v1/admin"))
	staff.Get("/dashboard", d.apiDashboard)
	staff.Get("/halls", d.apiAdminHalls)
	staff.Post("/halls", d.apiAdminCreateHall)
	staff.Get("/halls/:id", d.apiAdminHall)
	staff.Patch("/halls/:id", d.apiAdminUpdateHall)
	staff.Get("/movies", d.apiAdminMovies)
	staff.Post("/movies", d.apiAdminCreateMovie)
	staff.Patch("/movies/:id", d.apiAdminUpdateMovie)
	staff.Post("/movies/:id/retire", d.apiAdminRetire(true))
	staff.Post("/movies/:id/unretire", d.apiAdminRetire(false))
	staff.Post("/shows", d.apiAdminCreateShow)
	staff.Patch("/shows/:id", d.apiAdminUpdateShow)
	staff.Post("/shows/:id/open-sale", d.apiAdminOpenSale)
	staff.Post("/shows/:id/close-sale", d.apiAdminCloseSale)
	staff.Post("/shows/:id/cancel", d.apiAdminCancelShow)
	staff.Get("/shows/:id/seats", d.apiStaffSeatMap)
	staff.Get("/shows/:id/waiting-room", d.apiAdminWaitingRoom)
	staff.Get("/shows/:id/waitlist", d.apiAdminWaitlist)
	staff.Post("/shows/:id/house-seats", d.apiHouseSeats(true))
	staff.Post("/shows/:id/house-seats/unblock", d.apiHouseSeats(false))
	staff.Post("/shows/:id/seats/:seat_id/release", d.apiReleaseSeat)
	staff.Post("/shows/:id/box-office", d.apiAdminBoxOffice) // a counter sale, paid at once
	staff.Get("/shifts", d.apiAdminShifts)
	staff.Post("/shifts", d.apiAdminOpenShift)
	staff.Get("/shifts/current", d.apiAdminCurrentShift) // before /shifts/:id
	staff.Get("/shifts/:id", d.apiAdminShift)
	staff.Post("/shifts/:id/close", d.apiAdminCloseShift)
	staff.Get("/orders", d.apiAdminOrders)
	staff.Get("/orders/:no", d.apiAdminOrder)
	staff.Post("/orders/:no/refund", d.apiAdminRefund)
	staff.Get("/tickets/:ref", d.apiAdminTicket)
	staff.Post("/tickets/:ref/admit", d.apiAdminAdmit)
	staff.Get("/audit", d.apiAdminAudit)
	staff.Get("/ticket-types", d.apiAdminTicketTypes)
	staff.Post("/ticket-types", d.apiAdminCreateTicketType)
	staff.Get("/price-cards", d.apiAdminPriceCards)
	staff.Post("/price-cards", d.apiAdminCreatePriceCard)
	staff.Get("/price-cards/:id", d.apiAdminPriceCard)
	staff.Patch("/price-cards/:id", d.apiAdminUpdatePriceCard)
	staff.Post("/price-cards/:id/apply", d.apiAdminApplyPriceCard)
	staff.Get("/vouchers", d.apiAdminVouchers) // ?cinema_id= &batch=
	staff.Post("/vouchers", d.apiAdminCreateVoucher)
	staff.Post("/vouchers/batch", d.apiAdminCreateVoucherBatch)
	staff.Get("/vouchers/batch/:name.csv", d.apiAdminVoucherBatchCSV)
	staff.Get("/vouchers/:code", d.apiAdminVoucher)
	staff.Get("/reports/sales", d.apiAdminSalesReport) // ?from= &to= &by= &cinema_id= &format=csv
	staff.Patch("/vouchers/:code", d.apiAdminUpdateVoucher)

	// admins only, below the staff check (staff 403)
	users := staff.Group("/users", RequireRole(services.RoleAdmin))
	users.Get("", d.apiAdminUsers)
	users.Patch("/:id", d.apiAdminSetRole)
	cinemas := staff.Group("/cinemas", RequireRole(services.RoleAdmin))
	cinemas.Post("", d.apiAdminCreateCinema)
	cinemas.Patch("/:id", d.apiAdminUpdateCinema)
	reconcile := staff.Group("/reconcile", RequireRole(services.RoleAdmin))
	reconcile.Post("", d.apiReconcile)
	reconcile.Get("/runs", d.apiReconcileRuns)
	reconcile.Get("/runs/:run_id", d.apiReconcileRun)
}

// pageRoutes registers the moviegoer pages.
func (d *Deps) pageRoutes(app fiber.Router) {
	// anyone
	app.Get("/", d.homePage)
	app.Get("/movies/:id", d.movieShowtimesPage)
	app.Get("/shows/:id", d.showPage)
	app.Get("/shows/:id/live", d.showLive)
	app.Post("/shows/:id/book", d.bookSeats) // signed out: to sign-in, keeping the picks
	app.Get("/shows/:id/book", toShow)       // an address bar never lands on a POST-only URL
	app.Get("/shows/:id/best", toShow)
	app.Get("/shows/:id/voucher", d.voucherPreview) // the booking form's voucher check (htmx); signed out: says to sign in
	app.Get("/login", d.loginPage)
	app.Post("/login", d.login)
	app.Get("/register", d.registerPage)
	app.Post("/register", d.register)
	app.Post("/logout", d.logout)
	app.Get("/password/forgot", d.forgotPasswordPage) // a reset link by e-mail
	app.Post("/password/forgot", d.forgotPassword)
	app.Get("/password/reset", d.resetPasswordPage) // ?token= from the e-mail
	app.Post("/password/reset", d.resetPassword)
	// the demo provider stands for an external site: no login of its own
	app.Get("/pay/demo/:payment_id", d.demoPayPage)
	app.Post("/pay/demo/:payment_id/approve", d.demoDecide(true))
	app.Post("/pay/demo/:payment_id/decline", d.demoDecide(false))

	// a signed-in user; signed out: to the sign-in form, coming back afterwards
	user := signedIn(app, requirePageUser)
	user.Post("/shows/:id/best", d.bookBest)
	user.Get("/shows/:id/queue", d.queuePage) // the waiting room of a flash on-sale
	user.Post("/shows/:id/queue", d.joinQueue)
	user.Get("/shows/:id/waitlist", d.waitlistPanel) // the show page's panel, for htmx to refresh
	user.Post("/shows/:id/waitlist", d.joinWaitlist)
	user.Post("/shows/:id/waitlist/leave", d.leaveWaitlist)
	orders := app.Group("/orders", requirePageUser) // every path below /orders
	orders.Get("/", d.ordersPage)
	orders.Get("/:no", d.orderPage)
	orders.Get("/:no/ticket.png", d.ticketImage)
	orders.Get("/:no/ticket.pdf", d.ticketPDF) // the buyer's, or staff's of the order's cinema
	orders.Get("/:no/ticket", d.ticketPage)
	orders.Get("/:no/calendar.ics", d.calendarFile) // a paid order's show for the buyer's calendar
	orders.Post("/:no/pay", d.payOrder)
	orders.Post("/:no/cancel", d.cancelOrder)
	orders.Get("/:no/exchange", d.exchangePage) // the seat picker, changing the order's seats
	orders.Post("/:no/exchange", d.exchangeOrder)
}

// consoleRoutes registers the staff console under /admin. Signed-out visitors are sent
// to sign in, customers (and staff on the admins' pages) get the 403 page; forms POST
// and answer 303 to the page to show next, or re-render the form with what was wrong.
func (d *Deps) consoleRoutes(app fiber.Router) {
	// staff and admins, on every path below /admin (limited staff: as the API's)
	staff := app.Group("/admin", requirePageRole(services.RoleStaff, services.RoleAdmin), d.guardCinema("/admin"))
	staff.Get("/", d.dashboardPage)
	// halls and their layouts: the list, the new-hall and edit forms (Preview
	// re-renders the form), and the htmx preview partial
	staff.Get("/halls", d.hallListPage)
	staff.Get("/halls/new", d.newHallPage)
	staff.Post("/halls", d.saveHall)
	staff.Post("/halls/preview", d.hallPreview) // before /halls/:id
	staff.Get("/halls/:id", d.editHallPage)
	staff.Post("/halls/:id", d.saveHall)
	// movies: the list with the create form, one movie's edit form, retiring
	staff.Get("/movies", d.moviesPage)
	staff.Post("/movies", d.createMoviePage)
	staff.Get("/movies/:id", d.moviePage)
	staff.Post("/movies/:id", d.updateMoviePage)
	staff.Post("/movies/:id/retire", d.retireMoviePage(true))
	staff.Post("/movies/:id/unretire", d.retireMoviePage(false))
	// shows: a day's programme, the new-show form, sale control and cancellation
	staff.Get("/shows", d.showsDayPage)
	staff.Get("/shows/new", d.newShowPage) // before /shows/:id
	staff.Get("/shows/new/prices", d.zonePricesPartial)
	staff.Post("/shows", d.createShowPage)
	staff.Get("/shows/:id", d.showDetailPage)
	staff.Post("/shows/:id", d.updateShowPage)
	staff.Post("/shows/:id/price-card", d.applyCardToShowPage)
	staff.Post("/shows/:id/open-sale", d.saleControlPage(true))
	staff.Post("/shows/:id/close-sale", d.saleControlPage(false))
	staff.Post("/shows/:id/waiting-room", d.waitingRoomPage) // on/off and pace; its figures: GET /shows/:id?part=waiting-room
	staff.Get("/shows/:id/cancel", d.cancelShowConfirmPage)
	staff.Post("/shows/:id/cancel", d.cancelShowPage)
	// a show's seat map for staff: house seats, releasing a stuck hold
	staff.Get("/shows/:id/seats", d.showSeatsPage)
	staff.Post("/shows/:id/seats/house", d.houseSeatsForm)
	staff.Post("/shows/:id/seats/:seat_id/release", d.releaseSeatForm)
	staff.Get("/shows/:id/door", d.doorPage) // the door page for this show
	// the box office: its shows, a show's counter screen (sell, price), shifts and cash-ups
	staff.Get("/box-office", d.boxOfficePage)
	staff.Get("/shows/:id/box-office", d.boxOfficeSalePage)
	staff.Post("/shows/:id/box-office", d.boxOfficeForm)
	staff.Get("/shifts", d.shiftsPage)
	staff.Post("/shifts", d.openShiftForm)
	staff.Get("/shifts/:id", d.shiftPage)
	staff.Post("/shifts/:id/close", d.closeShiftForm)
	// order search, one order, refunds
	staff.Get("/orders", d.adminOrdersPage)
	staff.Get("/orders/:no", d.adminOrderPage)
	staff.Post("/orders/:no/refund", d.adminRefundOrder)
	staff.Get("/audit", d.auditPage)
	// ticket types and price cards: the lists, their forms, applying a card to shows
	staff.Get("/prices", d.pricesPage)
	staff.Post("/prices/types", d.createTicketTypePage)
	staff.Post("/prices/cards", d.savePriceCardPage)
	staff.Post("/prices/cards/:id", d.savePriceCardPage)
	staff.Post("/prices/apply", d.applyPriceCardPage)
	// vouchers: the list with the add forms (one, a batch), one voucher with its orders
	staff.Get("/vouchers", d.vouchersPage)
	staff.Post("/vouchers", d.createVoucherPage)
	staff.Post("/vouchers/batch", d.createVoucherBatchPage)
	staff.Get("/vouchers/:code", d.voucherPage)
	staff.Post("/vouchers/:code/active", d.voucherActivePage)
	// sales reports: the table and chart, and the same report as CSV
	staff.Get("/reports", d.reportsPage)
	staff.Get("/reports/sales.csv", d.reportsCSV)
	// the door: scan or type a ticket's reference to admit its holder
	staff.Get("/door", d.doorPage)
	staff.Post("/door", d.doorAdmit)

	// admins only, on every path below their prefix
	users := app.Group("/admin/users", requirePageRole(services.RoleAdmin))
	users.Get("/", d.adminUsersPage)
	users.Post("/:id/role", d.adminSetRole)
	users.Post("/:id/cinemas", d.adminSetCinemas)
	cinemas := app.Group("/admin/cinemas", requirePageRole(services.RoleAdmin))
	cinemas.Get("/", d.cinemasPage)
	cinemas.Post("/", d.saveCinema)
	cinemas.Post("/:id", d.saveCinema)
	reconcile := app.Group("/admin/reconcile", requirePageRole(services.RoleAdmin))
	reconcile.Get("/", d.reconcilePage)
	reconcile.Post("/", d.startReconcile)
	reconcile.Get("/runs/:id", d.reconcileRunPage)
	mailbox := app.Group("/admin/mailbox", requirePageRole(services.RoleAdmin))
	mailbox.Get("/", d.mailboxPage)
	mailbox.Get("/:id", d.mailboxMessagePage)
}

// routeSet registers routes on r with check in front of each one's handlers: a role
// check for routes that share no path prefix of their own, so it runs for those routes
// only and never for another address below the same prefix.
type routeSet struct {
	r     fiber.Router
	check fiber.Handler
}

// signedIn returns the routes of r that check runs in front of.
func signedIn(r fiber.Router, check fiber.Handler) routeSet { return routeSet{r: r, check: check} }

// Get registers a GET (and HEAD) route.
func (s routeSet) Get(path string, h fiber.Handler) { s.r.Get(path, s.check, h) }

// Post registers a POST route.
func (s routeSet) Post(path string, h fiber.Handler) { s.r.Post(path, s.check, h) }

// Delete registers a DELETE route.
func (s routeSet) Delete(path string, h fiber.Handler) { s.r.Delete(path, s.check, h) }
