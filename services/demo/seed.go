package demo

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/accounts"
	"seatflow/services/audit"
	"seatflow/services/catalog"
	"seatflow/services/orders"
	"seatflow/services/store"
)

// DemoOptions configures SeedDemo.
//
// Now is the instant the seed is relative to (converted to UTC; the zero value means
// the current time). Zone is the cinema's IANA time zone (e.g. Asia/Shanghai): the
// seeded days and show times are local to it (nil means UTC). Currency is the ISO 4217
// code of every seeded show (default "CNY"). PurchaseLimit is the number of seats one
// user may hold and own per show (default 4). SeatMaps, when set, loads the seat map of
// the show the seed fills with paid orders, so that the seat cache agrees with MySQL
// from the start (a show with sold seats and no map is drift to reconciliation); nil
// leaves that to reconciliation. Chain adds a second cinema in another time zone and
// currency (DemoBranch) with a hall and shows of its own, so the demo is a chain of two.
type DemoOptions struct {
	Now           time.Time
	Zone          *time.Location
	Currency      string
	PurchaseLimit int
	SeatMaps      SeatLoader
	Chain         bool
}

// SeatLoader builds a show's seat map from MySQL unless it is loaded; seats.SeatStore
// implements it. Errors: UNAVAILABLE.
type SeatLoader interface {
	Load(ctx context.Context, showID int64) error
}

// DemoAccount is one demo login: Role is RoleCustomer, RoleStaff or RoleAdmin, Email
// its address and Password the fresh random password set by this seed run (16
// base64url characters); the caller prints it.
type DemoAccount struct {
	Role, Email, Password string
}

// DemoReport says what one SeedDemo run created: the numbers of halls (with their
// zones and seats), movies, shows (with their prices) and paid filler orders inserted
// by this run (0 for things that existed already), and the demo accounts with the
// passwords set by this run.
type DemoReport struct {
	CinemasCreated, HallsCreated, MoviesCreated, ShowsCreated, OrdersCreated int
	Accounts                                                                 []DemoAccount
}

// demoDays is how many local days of shows the seed keeps ahead: today and the next 6.
const demoDays = 7

// demoLateSaleFrom is the first day index (0 = today) whose shows go on sale later:
// sale_opens_at = starts_at - demoLateSaleLead, so their sale window opens after Now.
const demoLateSaleFrom = 5

const (
	demoEarlySaleLead = 7 * 24 * time.Hour
	demoLateSaleLead  = 2 * 24 * time.Hour
)

// demoEveningSurcharge is added to every zone price of a show starting at or after
// 18:00 local time (minor units).
const demoEveningSurcharge int64 = 1000

// demoFreeSeats are the seats of Hall 1 left free in the nearly sold out show.
var demoFreeSeats = map[string]bool{"A1": true, "A10": true, "D5": true, "F8": true, "H5": true, "H6": true}

// demoSoldOutHall and demoSoldOutTime pick the nearly sold out show: tomorrow's show at
// that local time in that hall.
const (
	demoSoldOutHall = "Hall 1"
	demoSoldOutTime = "19:30"
)

type demoZone struct {
	code, name string
	price      int64 // base price in minor units, before the evening surcharge
}

type demoHall struct {
	Name   string
	Layout string   // layout text (ParseLayout), numbered left to right
	times  []string // daily show times, local "HH:MM"
}

var (
	demoStandard = demoZone{"standard", "Standard", 4500}
	demoPremium  = demoZone{"premium", "Premium", 6500}
	demoVIP      = demoZone{"vip", "VIP", 9000}
)

// demoRows repeats one layout line n times.
func demoRows(n int, line string) string { return strings.Repeat(line+"\n", n) }

// DemoHalls: Hall 1 small (8 x 10 = 80 seats), Hall 2 standard (12 rows of 18 seats
// with a centre aisle at col 10 = 216 seats, rows E..H premium, wheelchair spaces with
// companions in the front row, two blocked seats J9 and J10 behind a pillar), Hall 3
// large (20 rows of 5 + 10 + 5 seats with aisles at cols 6 and 17 = 400 seats, rows I..P
// premium, Q..T VIP).
var DemoHalls = []demoHall{
	{
		Name:   "Hall 1",
		Layout: demoRows(8, "SSSSSSSSSS"),
		times:  []string{"10:30", "13:45", "16:30", "19:30", "22:00"},
	},
	{
		Name: "Hall 2",
		Layout: "WCSSSSSSS.SSSSSSSCW\n" + demoRows(3, "SSSSSSSSS.SSSSSSSSS") + demoRows(4, "PPPPPPPPP.PPPPPPPPP") +
			"SSSSSSSSS.SSSSSSSSS\n" + "SSSSSSSSB.BSSSSSSSS\n" + demoRows(2, "SSSSSSSSS.SSSSSSSSS"),
		times: []string{"11:00", "14:15", "17:30", "20:45"},
	},
	{
		Name: "Hall 3",
		Layout: "WCSSS.SSSSSSSSSS.SSSCW\n" + demoRows(7, "SSSSS.SSSSSSSSSS.SSSSS") +
			demoRows(8, "PPPPP.PPPPPPPPPP.PPPPP") + demoRows(4, "VVVVV.VVVVVVVVVV.VVVVV"),
		times: []string{"12:15", "15:45", "19:15", "22:30"},
	},
}

// demoSite is one cinema of the demo: its halls and prices. Its zone and currency are
// the cinema's (the first cinema's come from DemoOptions).
type demoSite struct {
	cinemaID  int64
	zone      *time.Location
	currency  string
	halls     []demoHall
	prices    map[string]int64 // zone code -> base price in minor units
	surcharge int64            // added from 18:00 local (minor units)
}

// demoFirstPrices are the first cinema's base prices (minor units of its currency).
var demoFirstPrices = map[string]int64{demoStandard.code: demoStandard.price, demoPremium.code: demoPremium.price, demoVIP.code: demoVIP.price}

// DemoBranch is the chain's second cinema (Chain): in Europe/London, priced in GBP;
// DemoBranchAlt replaces it when the first cinema is itself in Europe/London.
var (
	DemoBranch    = services.Cinema{Name: "seatflow London", TimeZone: "Europe/London", Currency: "GBP"}
	DemoBranchAlt = services.Cinema{Name: "seatflow Shanghai", TimeZone: "Asia/Shanghai", Currency: "CNY"}
)

// DemoBranchHalls: the second cinema's Screen 1 (10 rows of 7 + 7 seats with a centre
// aisle = 140 seats, the back four rows premium, wheelchair spaces in the front row).
var DemoBranchHalls = []demoHall{
	{
		Name:   "Screen 1",
		Layout: "WCSSSSS.SSSSSCW\n" + demoRows(5, "SSSSSSS.SSSSSSS") + demoRows(4, "PPPPPPP.PPPPPPP"),
		times:  []string{"12:00", "15:00", "18:30", "21:15"},
	},
}

// demoBranchPrices are the second cinema's base prices: £12.50 standard, £16.50
// premium, £2.00 more from 18:00 (in minor units; ¥ in DemoBranchAlt).
var demoBranchPrices = map[string]int64{demoStandard.code: 1250, demoPremium.code: 1650}

const demoBranchSurcharge int64 = 200

// demoMovies are made-up titles; the longest runtime fits the shortest gap between two
// shows of a hall (2 h 30).
var demoMovies = []services.Movie{
	{Title: "Lanterns Over the Salt Road", RuntimeMin: 124, Rating: "PG-13",
		Synopsis: "A disgraced caravan guide must lead a blind tea merchant across a desert that is slowly swallowing its own trade route."},
	{Title: "The Clockmaker of Wuzhen", RuntimeMin: 108, Rating: "PG",
		Synopsis: "In a canal town where every clock runs three minutes late, an apprentice discovers the one that keeps perfect time is hiding a letter."},
	{Title: "Static Between Stations", RuntimeMin: 97, Rating: "R",
		Synopsis: "Two night-shift radio hosts on rival frequencies realise their callers are describing the same crime before it happens."},
	{Title: "Copper Sparrow", RuntimeMin: 131, Rating: "PG-13",
		Synopsis: "A retired safecracker assembles a crew of former students to steal back the music box she was framed for stealing forty years ago."},
	{Title: "Nine Kites for Mei", RuntimeMin: 92, Rating: "G",
		Synopsis: "A shy girl builds nine kites, one for each wish her grandmother never got to make, and the wind starts answering."},
	{Title: "Undertow at Kestrel Bay", RuntimeMin: 115, Rating: "R",
		Synopsis: "A lifeguard who never lost a swimmer finds a stranger on the beach carrying a photo of her own drowning."},
	{Title: "Afterglow Protocol", RuntimeMin: 139, Rating: "PG-13",
		Synopsis: "When the last orbital mirror fails, an engineer with a forged licence has one sunrise to steer it home."},
}

var demoCurrencyRE = regexp.MustCompile(`^[A-Z]{3}$`)

// SeedDemo fills the database with a demo cinema (with opt.Chain, a chain of two) and is
// idempotent: a second run
// creates nothing new except the shows of days that were not seeded before, and never
// duplicates a row (it relies on the unique keys of halls, movies and shows, and on order
// numbers).
//
// It creates three halls from their layout text through CatalogWriter.CreateHall,
// audited as the system (Hall 1: 80 seats, one zone; Hall 2: 216 seats in two zones
// with a centre aisle, wheelchair and companion seats and two blocked seats; Hall 3: 400
// seats in three zones with two aisles; a hall whose name exists is kept), seven movies, and for today and the next six
// days (local days in opt.Zone) 5 + 4 + 4 shows a day at fixed local times (stored in
// UTC; shows already started are skipped). Each show has a price for every zone of its
// hall in minor units (standard 4500, premium 6500, vip 9000, plus 1000 from 18:00
// local). Shows of days 0..4 are on sale with sale_opens_at = starts_at - 7 days; shows
// of days 5 and 6 open at starts_at - 2 days (after Now), half of them 'on_sale' and
// half 'scheduled'. sale_closes_at = starts_at. Tomorrow's shows are always on sale at
// Now and start more than 2 hours later.
//
// Tomorrow's 19:30 show in Hall 1 is made nearly sold out: when it has no orders yet,
// paid orders (at most PurchaseLimit seats each, owned by filler-N@seatflow.test
// accounts that cannot log in) take all but 6 of its seats, and its seat map is loaded
// (opt.SeatMaps), so the first reconciliation run finds nothing. The seat maps in Redis
// are a cache that loads from MySQL; a map loaded before the seed is repaired by
// reconciliation.
//
// With opt.Chain it also creates the second cinema DemoBranch (Europe/London, GBP; or
// DemoBranchAlt when the first cinema is in Europe/London) unless a cinema of that name
// exists, with its hall Screen 1 (140 seats, standard and premium) and 4 shows a day for
// the same seven days local to that cinema, at 12:00, 15:00, 18:30 and 21:15 its time,
// priced £12.50 and £16.50, £2.00 more from 18:00.
//
// Finally the accounts customer@, staff@ and admin@seatflow.test get a fresh random
// password each run (created when missing), returned in the report.
func SeedDemo(ctx context.Context, db *sqlx.DB, users *accounts.Users, opt DemoOptions) (*DemoReport, error) {
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	opt.Now = opt.Now.UTC().Truncate(time.Microsecond)
	if opt.Zone == nil {
		opt.Zone = time.UTC
	}
	if opt.Currency == "" {
		opt.Currency = "CNY"
	}
	if !demoCurrencyRE.MatchString(opt.Currency) {
		return nil, fmt.Errorf("demo seed: currency %q is not an ISO 4217 code", opt.Currency)
	}
	if opt.PurchaseLimit <= 0 {
		opt.PurchaseLimit = 4
	}
	rep := &DemoReport{}

	clock := fixedNow(opt.Now)
	w := catalog.NewCatalogWriter(db, catalog.NewCatalog(db), nil, audit.NewAudit(db, clock), clock, catalog.WriterConfig{Zone: opt.Zone})
	firstID, err := store.FirstCinemaID(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("demo seed: the first cinema (migrate first): %w", err)
	}
	sites := []demoSite{{cinemaID: firstID, zone: opt.Zone, currency: opt.Currency, halls: DemoHalls,
		prices: demoFirstPrices, surcharge: demoEveningSurcharge}}
	if opt.Chain {
		branch, created, err := seedDemoBranch(ctx, db, w, opt)
		if err != nil {
			return nil, fmt.Errorf("demo seed: second cinema: %w", err)
		}
		if created {
			rep.CinemasCreated++
		}
		sites = append(sites, demoSite{cinemaID: branch.ID, zone: branch.Loc(), currency: branch.Currency,
			halls: DemoBranchHalls, prices: demoBranchPrices, surcharge: demoBranchSurcharge})
	}

	movieIDs, n, err := seedDemoMovies(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("demo seed: movies: %w", err)
	}
	rep.MoviesCreated = n

	var soldOutShow int64
	for i, site := range sites {
		hallIDs := make(map[string]int64, len(site.halls))
		for _, h := range site.halls {
			id, created, err := seedDemoHall(ctx, db, w, site.cinemaID, h)
			if err != nil {
				return nil, fmt.Errorf("demo seed: %s: %w", h.Name, err)
			}
			hallIDs[h.Name] = id
			if created {
				rep.HallsCreated++
			}
		}
		soldOut, n, err := seedDemoShows(ctx, db, opt, site, hallIDs, movieIDs)
		if err != nil {
			return nil, fmt.Errorf("demo seed: shows: %w", err)
		}
		rep.ShowsCreated += n
		if i == 0 {
			soldOutShow = soldOut
		}
	}

	if soldOutShow != 0 {
		n, err := seedDemoFillShow(ctx, db, opt, soldOutShow)
		if err != nil {
			return nil, fmt.Errorf("demo seed: nearly sold out show %d: %w", soldOutShow, err)
		}
		rep.OrdersCreated = n
		if opt.SeatMaps != nil {
			// the filled show's seat map is loaded now, sold seats and all: left to the
			// first reconciliation run, it would be its one finding (missing_map)
			if err := opt.SeatMaps.Load(ctx, soldOutShow); err != nil {
				return nil, fmt.Errorf("demo seed: seat map of show %d: %w", soldOutShow, err)
			}
		}
	}

	for _, a := range []struct{ role, email, name string }{
		{services.RoleCustomer, "customer@seatflow.test", "Demo Customer"},
		{services.RoleStaff, "staff@seatflow.test", "Demo Staff"},
		{services.RoleAdmin, "admin@seatflow.test", "Demo Admin"},
	} {
		pw, err := demoRandom(12)
		if err != nil {
			return nil, err
		}
		if err := seedDemoAccount(ctx, users, a.email, pw, a.name, a.role); err != nil {
			return nil, fmt.Errorf("demo seed: account %s: %w", a.email, err)
		}
		rep.Accounts = append(rep.Accounts, DemoAccount{Role: a.role, Email: a.email, Password: pw})
	}
	return rep, nil
}

// fixedNow is a clock standing at one instant.
type fixedNow time.Time

func (f fixedNow) Now() time.Time { return time.Time(f) }

// demoRandom returns n random bytes as base64url without padding.
func demoRandom(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// seedDemoAccount sets the password and role of an account, creating it when missing.
func seedDemoAccount(ctx context.Context, users *accounts.Users, email, password, name, role string) error {
	err := users.SetPassword(ctx, email, password, role)
	if services.ErrorCode(err) != services.CodeNotFound {
		return err
	}
	_, err = users.Create(ctx, email, password, name, role)
	if services.ErrorCode(err) == services.CodeConflict { // created in between by a concurrent seed
		return users.SetPassword(ctx, email, password, role)
	}
	return err
}

// seedDemoHall creates a hall from its layout through the catalog writer (audited as
// the system's "hall.create") unless a hall of that name exists, which is kept as it is.
// created reports whether this run made it.
func seedDemoHall(ctx context.Context, db *sqlx.DB, w *catalog.CatalogWriter, cinemaID int64, h demoHall) (id int64, created bool, err error) {
	hall, err := w.CreateHall(ctx, 0, catalog.HallInput{CinemaID: cinemaID, Name: h.Name, Layout: h.Layout, Numbering: catalog.NumberLeftToRight})
	switch {
	case err == nil:
		return hall.ID, true, nil
	case !errors.Is(err, catalog.ErrDuplicateHallName): // a hall of that name exists: keep it
		return 0, false, err
	}
	id, err = store.HallIDByName(ctx, db, cinemaID, h.Name)
	return id, false, err
}

// seedDemoMovies inserts the demo movies that are missing and returns the ids of all of
// them in demoMovies order, with how many it created.
func seedDemoMovies(ctx context.Context, db *sqlx.DB) ([]int64, int, error) {
	ids := make([]int64, 0, len(demoMovies))
	created := 0
	for _, m := range demoMovies {
		isNew, err := store.InsertMovieIfNew(ctx, db, m)
		if err != nil {
			return nil, 0, err
		}
		if isNew {
			created++
		}
		id, err := store.MovieIDByTitle(ctx, db, m.Title)
		if err != nil {
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	return ids, created, nil
}

// seedDemoShows creates the missing shows of a site's halls for today and the next six
// days local to the site, with their prices in its currency. It returns the id of the
// show to make nearly sold out (0 if that show does not exist at this site) and how many
// shows it created.
func seedDemoShows(ctx context.Context, db *sqlx.DB, opt DemoOptions, site demoSite, hallIDs map[string]int64, movieIDs []int64) (soldOut int64, created int, err error) {
	local := opt.Now.In(site.zone)
	y, m, d := local.Date()
	for day := 0; day < demoDays; day++ {
		date := time.Date(y, m, d+day, 0, 0, 0, 0, time.UTC)
		ordinal := int(date.Unix() / 86400) // stable per calendar date, for the movie rotation
		for hi, h := range site.halls {
			zones, err := demoHallZones(ctx, db, hallIDs[h.Name], site.prices)
			if err != nil {
				return 0, 0, err
			}
			for slot, hm := range h.times {
				var hh, mm int
				if _, err := fmt.Sscanf(hm, "%d:%d", &hh, &mm); err != nil {
					return 0, 0, fmt.Errorf("show time %q: %w", hm, err)
				}
				startLocal := time.Date(y, m, d+day, hh, mm, 0, 0, site.zone)
				starts := startLocal.UTC()
				if !starts.After(opt.Now) {
					continue // already started: nobody could buy it
				}
				opens, status := starts.Add(-demoEarlySaleLead), services.ShowOnSale
				if day >= demoLateSaleFrom {
					opens = starts.Add(-demoLateSaleLead)
					if slot%2 == 0 { // keeps Hall 1's 19:30 on sale for a later run's sold-out pick
						status = services.ShowScheduled
					}
				}
				surcharge := int64(0)
				if startLocal.Hour() >= 18 {
					surcharge = site.surcharge
				}
				movie := movieIDs[(ordinal+3*hi+slot)%len(movieIDs)]
				id, isNew, err := seedDemoShow(ctx, db, opt, site.currency, hallIDs[h.Name], movie, starts, opens, status, zones, surcharge)
				if err != nil {
					return 0, 0, fmt.Errorf("%s %s: %w", h.Name, startLocal.Format("2006-01-02 15:04"), err)
				}
				if isNew {
					created++
				}
				if day == 1 && h.Name == demoSoldOutHall && hm == demoSoldOutTime {
					soldOut = id
				}
			}
		}
	}
	return soldOut, created, nil
}

// demoHallZones returns zone id -> base price of a seeded hall's zones (prices by zone
// code; a zone without one takes the standard price).
func demoHallZones(ctx context.Context, db *sqlx.DB, hallID int64, prices map[string]int64) (map[int64]int64, error) {
	rows, err := store.HallZoneCodes(ctx, db, hallID)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]int64, len(rows))
	for _, r := range rows {
		price, ok := prices[r.Code]
		if !ok {
			price = prices[demoStandard.code]
		}
		out[r.ID] = price
	}
	return out, nil
}

// seedDemoBranch creates the chain's second cinema through the catalog writer (audited
// as the system's "cinema.create") unless a cinema of its name exists, which is kept as
// it is (zone and currency included). created reports whether this run made it.
func seedDemoBranch(ctx context.Context, db *sqlx.DB, w *catalog.CatalogWriter, opt DemoOptions) (services.Cinema, bool, error) {
	want := DemoBranch
	if opt.Zone.String() == DemoBranch.TimeZone {
		want = DemoBranchAlt
	}
	c, err := w.CreateCinema(ctx, 0, catalog.CinemaInput{Name: want.Name, TimeZone: want.TimeZone, Currency: want.Currency})
	switch {
	case err == nil:
		return c, true, nil
	case !errors.Is(err, catalog.ErrDuplicateCinemaName):
		return c, false, err
	}
	all, err := store.Cinemas(ctx, db)
	if err != nil {
		return services.Cinema{}, false, err
	}
	for _, x := range all {
		if strings.EqualFold(x.Name, want.Name) {
			return x, false, nil
		}
	}
	return services.Cinema{}, false, fmt.Errorf("cinema %q is said to exist but was not found", want.Name)
}

// seedDemoShow inserts one show with a price for each zone in one transaction, unless a
// show already starts at that time in that hall. It returns the show's id either way.
func seedDemoShow(ctx context.Context, db *sqlx.DB, opt DemoOptions, currency string, hallID, movieID int64, starts, opens time.Time, status string, zones map[int64]int64, surcharge int64) (int64, bool, error) {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return 0, false, err
	}
	defer tx.Rollback()
	// the waiting room, its pace and the single-seat rule are the columns' defaults
	show := &services.Show{MovieID: movieID, HallID: hallID, StartsAt: starts, SaleOpensAt: opens, SaleClosesAt: starts,
		Status: status, PurchaseLimit: opt.PurchaseLimit, AdmitPerMinute: catalog.DefaultAdmitPerMinute,
		SingleSeatRule: catalog.RuleOff, Currency: currency, CreatedAt: opt.Now}
	id, inserted, err := store.InsertShowIfFree(ctx, tx, show)
	if err != nil {
		return 0, false, err
	}
	if !inserted {
		id, err := store.ShowIDAt(ctx, tx, hallID, starts)
		return id, false, err
	}
	for zid, price := range zones {
		if err := store.InsertShowPrice(ctx, tx, id, zid, price+surcharge); err != nil {
			return 0, false, err
		}
	}
	return id, true, tx.Commit()
}

// seedDemoFillShow sells all sellable seats of a show but demoFreeSeats to filler
// accounts, at most the show's purchase limit per account, as paid orders. It does
// nothing when the show has any order or is not on sale. It returns the number of orders created.
func seedDemoFillShow(ctx context.Context, db *sqlx.DB, opt DemoOptions, showID int64) (int, error) {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()

	// The row lock serialises concurrent seeds of the same show.
	show, err := store.LockShowSaleTerms(ctx, tx, showID)
	if err != nil {
		return 0, err
	}
	if show.Status != services.ShowOnSale {
		return 0, nil // changed by staff (or seeded as a later day): leave it alone
	}
	existing, err := store.SeedShowOrderCount(ctx, tx, showID)
	if err != nil {
		return 0, err
	}
	if existing > 0 {
		return 0, nil
	}
	seats, err := store.ShowSellablePricedSeats(ctx, tx, showID)
	if err != nil {
		return 0, err
	}
	sell := seats[:0]
	for _, s := range seats {
		if !demoFreeSeats[s.Label] {
			sell = append(sell, s)
		}
	}
	limit := show.Limit
	if limit <= 0 {
		limit = opt.PurchaseLimit
	}

	created := 0
	for start := 0; start < len(sell); start += limit {
		batch := sell[start:min(start+limit, len(sell))]
		n := created + 1
		userID, err := demoFillerUser(ctx, tx, n, opt.Now)
		if err != nil {
			return 0, err
		}
		var total int64
		for _, s := range batch {
			total += s.Price
		}
		orderNo := fmt.Sprintf("DEMO%d-%d", showID, n)
		paidAt := opt.Now
		order := &services.Order{OrderNo: orderNo, UserID: userID, ShowID: showID, Status: services.OrderPaid,
			TotalMinor: total, Currency: show.Currency, CreatedAt: opt.Now, ExpiresAt: opt.Now, PaidAt: &paidAt}
		for _, s := range batch {
			order.Seats = append(order.Seats, services.OrderSeat{SeatID: s.ID, ZoneCode: s.Zone, PriceMinor: s.Price})
		}
		if err := orders.InsertOrder(ctx, tx, order, true); err != nil {
			return 0, err
		}
		created++
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return created, nil
}

// demoFillerUser returns the id of filler-n@seatflow.test, creating it with a password
// hash that matches no password (it is not in bcrypt format), so nobody can log in.
func demoFillerUser(ctx context.Context, tx *sqlx.Tx, n int, now time.Time) (int64, error) {
	email := fmt.Sprintf("filler-%d@seatflow.test", n)
	id, err := store.SeedUserIDByEmail(ctx, tx, email)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return 0, err
	}
	hash := "!unusable:" + hex.EncodeToString(salt)
	if err := store.SeedInsertUser(ctx, tx, email, fmt.Sprintf("Demo filler %d", n), []byte(hash), services.RoleCustomer, now); err != nil {
		return 0, err
	}
	return store.SeedUserIDByEmail(ctx, tx, email)
}
