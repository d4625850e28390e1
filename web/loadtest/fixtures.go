package loadtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"golang.org/x/crypto/bcrypt"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/orders"
	"seatflow/services/store"
)

// This file is the load test's fixture: a hall, a movie and on-sale shows inserted
// through the catalog's storage functions (the server reads them like any other show),
// buyers registered and logged in through the API before the timed part, and the
// waiting room's crowd of visitors with their sessions inserted straight into MySQL.

// Zone codes of the fixture halls: the first third of the rows is premium.
const (
	zonePremium  = "premium"
	zoneStandard = "standard"
)

// fixturePrices are the prices per zone (minor units).
var fixturePrices = map[string]int64{zonePremium: 9000, zoneStandard: 6000}

// SeatInfo is one seat of a fixture hall.
type SeatInfo struct {
	ID       int64  `db:"id"`
	Row      int    `db:"row_no"`
	Col      int    `db:"col_no"`
	Zone     string `db:"zone_code"`
	rowIndex int
}

// Hall is a fixture hall: its grid and its seats in row, then column order.
type Hall struct {
	ID         int64
	Rows, Cols int
	Seats      []SeatInfo
	zoneIDs    map[string]int64
}

// Fixtures inserts the load test's halls and shows.
type Fixtures struct {
	db       *sqlx.DB
	runID    string
	currency string
	movieID  int64
	shows    atomic.Int64
	start    time.Time
}

// NewFixtures inserts a movie for the halls and shows to come; runID makes names unique
// (of the movie, halls and visitors). It needs a migrated database.
func NewFixtures(ctx context.Context, db *sqlx.DB, runID, currency string) (*Fixtures, error) {
	f := &Fixtures{db: db, runID: runID, currency: currency, start: time.Now().UTC().Truncate(time.Hour).Add(72 * time.Hour)}
	var err error
	f.movieID, err = store.InsertMovie(ctx, db, services.Movie{Title: "Load test " + runID, RuntimeMin: 120, Synopsis: "load test fixture"})
	if err != nil {
		return nil, fmt.Errorf("fixture movie: %w", err)
	}
	return f, nil
}

// NewHall inserts a hall of rows x cols seats in two zones and reads its seats back.
func (f *Fixtures) NewHall(ctx context.Context, name string, rows, cols int) (*Hall, error) {
	tx, err := f.db.BeginTxx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	h := &Hall{Rows: rows, Cols: cols, zoneIDs: map[string]int64{}}
	cinemaID, err := store.FirstCinemaID(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("fixture hall's cinema: %w", err)
	}
	if h.ID, err = store.InsertHall(ctx, tx, cinemaID, fmt.Sprintf("Load test %s %s", f.runID, name), rows, cols); err != nil {
		return nil, fmt.Errorf("fixture hall: %w", err)
	}
	for _, z := range []string{zonePremium, zoneStandard} {
		id, err := store.InsertZone(ctx, tx, h.ID, z, strings.ToUpper(z[:1])+z[1:])
		if err != nil {
			return nil, fmt.Errorf("fixture zone: %w", err)
		}
		h.zoneIDs[z] = id
	}
	const batch = 1000
	var seats []store.NewSeat
	flush := func() error {
		if len(seats) == 0 {
			return nil
		}
		err := store.InsertSeats(ctx, tx, seats)
		seats = seats[:0]
		return err
	}
	for r := 1; r <= rows; r++ {
		zone := zoneStandard
		if r <= max(1, rows/3) {
			zone = zonePremium
		}
		for c := 1; c <= cols; c++ {
			seats = append(seats, store.NewSeat{HallID: h.ID, ZoneID: h.zoneIDs[zone], Row: r, Col: c, Label: fmt.Sprintf("R%d-%d", r, c), Kind: services.KindStandard})
			if len(seats) == batch {
				if err := flush(); err != nil {
					return nil, fmt.Errorf("fixture seats: %w", err)
				}
			}
		}
	}
	if err := flush(); err != nil {
		return nil, fmt.Errorf("fixture seats: %w", err)
	}
	stored, err := store.HallSeats(ctx, tx, h.ID)
	if err != nil {
		return nil, err
	}
	h.Seats = make([]SeatInfo, len(stored))
	for i, s := range stored {
		h.Seats[i] = SeatInfo{ID: s.ID, Row: s.Row, Col: s.Col, Zone: s.ZoneCode, rowIndex: i}
	}
	return h, tx.Commit()
}

// NewShow inserts an on-sale show of the hall (sale window open now, starts in 3+ days)
// with the given purchase limit and returns its id.
func (f *Fixtures) NewShow(ctx context.Context, h *Hall, purchaseLimit int) (int64, error) {
	now := time.Now().UTC()
	starts := f.start.Add(time.Duration(f.shows.Add(1)) * 4 * time.Hour)
	tx, err := f.db.BeginTxx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	// the waiting room, its pace and the single-seat rule are the columns' defaults
	show := &services.Show{MovieID: f.movieID, HallID: h.ID, StartsAt: starts, SaleOpensAt: now.Add(-time.Hour), SaleClosesAt: starts.Add(-time.Hour),
		Status: services.ShowOnSale, PurchaseLimit: purchaseLimit, AdmitPerMinute: catalog.DefaultAdmitPerMinute, SingleSeatRule: catalog.RuleOff,
		Currency: f.currency, CreatedAt: now}
	id, err := store.InsertShow(ctx, tx, show)
	if err != nil {
		return 0, fmt.Errorf("fixture show: %w", err)
	}
	for z, zid := range h.zoneIDs {
		if err := store.InsertShowPrice(ctx, tx, id, zid, fixturePrices[z]); err != nil {
			return 0, fmt.Errorf("fixture price: %w", err)
		}
	}
	return id, tx.Commit()
}

// SellSeats inserts paid orders of perOrder seats each for seats, one buyer per order
// (round robin over buyers), before the server has loaded the show's seat map (it then
// loads them from MySQL as sold). It returns the number of orders.
func (f *Fixtures) SellSeats(ctx context.Context, showID int64, seats []SeatInfo, buyers []Buyer, perOrder int) (int, error) {
	now := time.Now().UTC()
	orders := 0
	for i := 0; i < len(seats); i += perOrder {
		part := seats[i:min(i+perOrder, len(seats))]
		var total int64
		for _, s := range part {
			total += fixturePrices[s.Zone]
		}
		user := buyers[orders%len(buyers)].ID
		if err := insertOrder(ctx, f.db, services.NewOrderNo(now), user, showID, services.OrderPaid, total, f.currency, now, part, true); err != nil {
			return orders, fmt.Errorf("fixture order: %w", err)
		}
		orders++
	}
	return orders, nil
}

// insertOrder inserts one order and its seats in one transaction; live false writes
// the seats as released (live NULL).
func insertOrder(ctx context.Context, db *sqlx.DB, orderNo string, userID, showID int64, status string, total int64,
	currency string, now time.Time, seats []SeatInfo, live bool) error {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	order := &services.Order{OrderNo: orderNo, UserID: userID, ShowID: showID, Status: status, TotalMinor: total,
		Currency: currency, CreatedAt: now, ExpiresAt: now.Add(15 * time.Minute)}
	if status == services.OrderPaid {
		order.PaidAt = &now
	}
	for _, s := range seats {
		order.Seats = append(order.Seats, services.OrderSeat{SeatID: s.ID, ZoneCode: s.Zone, PriceMinor: fixturePrices[s.Zone]})
	}
	if err := orders.InsertOrder(ctx, tx, order, live); err != nil {
		return err
	}
	return tx.Commit()
}

// insertBatch inserts orders and their seats (released) in one transaction with the
// group commit's two multi-row INSERTs.
func insertBatch(ctx context.Context, db *sqlx.DB, list []*services.Order) error {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := orders.InsertOrders(ctx, tx, list, false, 1); err != nil {
		return err
	}
	return tx.Commit()
}

// Buyer is a registered, logged-in customer.
type Buyer struct {
	ID    int64
	Token string
}

// buyerPassword is the password of every load test buyer.
const buyerPassword = "load-test-buyer-password"

// registerBuyers registers and logs in n buyers through the API with parallel callers.
func registerBuyers(ctx context.Context, c *Client, runID string, n, parallel int) ([]Buyer, error) {
	out := make([]Buyer, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for w := 0; w < max(1, parallel); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				email := fmt.Sprintf("buyer%d.%s@loadtest.example", i, strings.ToLower(runID))
				var login struct {
					Token  string `json:"token"`
					UserID string `json:"user_id"`
				}
				err := c.JSON(ctx, "POST", "/api/v1/auth/register", "", map[string]string{"email": email, "password": buyerPassword, "name": fmt.Sprintf("Buyer %d", i)}, nil)
				if err == nil {
					err = c.JSON(ctx, "POST", "/api/v1/auth/login", "", map[string]string{"email": email, "password": buyerPassword}, &login)
				}
				if err == nil {
					_, err = fmt.Sscan(login.UserID, &out[i].ID)
					out[i].Token = login.Token
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("buyer %d: %w", i, err)
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return out, firstErr
}

// NewVisitors inserts n customers (the visitors of show showID) and a live session of
// each straight into MySQL, in multi-row INSERTs of visitorBatch rows (registering
// thousands through the API would take minutes), and returns them with their session
// tokens. Their password is buyerPassword (bcrypt cost 4), so each could also sign in.
func (f *Fixtures) NewVisitors(ctx context.Context, showID int64, n int) ([]Buyer, error) {
	hash, err := bcrypt.GenerateFromPassword([]byte(buyerPassword), 4)
	if err != nil {
		return nil, err
	}
	const visitorBatch = 1000
	out := make([]Buyer, 0, n)
	now := time.Now().UTC()
	for lo := 0; lo < n; lo += visitorBatch {
		hi := min(lo+visitorBatch, n)
		emails := make([]string, 0, hi-lo)
		names := make([]string, 0, hi-lo)
		for i := lo; i < hi; i++ {
			emails = append(emails, fmt.Sprintf("visitor%d.show%d.%s@loadtest.example", i, showID, strings.ToLower(f.runID)))
			names = append(names, fmt.Sprintf("Visitor %d", i))
		}
		if err := store.LoadTestInsertUsers(ctx, f.db, emails, names, hash, now); err != nil {
			return nil, fmt.Errorf("fixture visitors: %w", err)
		}
		rows, err := store.LoadTestUsersByEmail(ctx, f.db, emails)
		if err != nil {
			return nil, fmt.Errorf("fixture visitors: %w", err)
		}
		ids := make(map[string]int64, len(rows))
		for _, r := range rows {
			ids[r.Email] = r.ID
		}
		sessions := make([]store.LoadTestSession, 0, len(emails))
		for _, email := range emails {
			id, ok := ids[email]
			if !ok {
				return nil, fmt.Errorf("fixture visitors: %s was not inserted", email)
			}
			tok := make([]byte, 32)
			if _, err := rand.Read(tok); err != nil {
				return nil, err
			}
			b := Buyer{ID: id, Token: base64.RawURLEncoding.EncodeToString(tok)}
			h := sha256.Sum256([]byte(b.Token)) // what the server keys a session by
			sessions = append(sessions, store.LoadTestSession{TokenHash: h[:], UserID: id, CreatedAt: now, LastSeen: now, ExpireAt: now.Add(7 * 24 * time.Hour)})
			out = append(out, b)
		}
		if err := store.LoadTestInsertSessions(ctx, f.db, sessions); err != nil {
			return nil, fmt.Errorf("fixture visitor sessions: %w", err)
		}
	}
	return out, nil
}

// NewRoomShow inserts an on-sale show of the hall like NewShow, with its waiting room
// on at admitPerMinute buyers a minute.
func (f *Fixtures) NewRoomShow(ctx context.Context, h *Hall, purchaseLimit, admitPerMinute int) (int64, error) {
	id, err := f.NewShow(ctx, h, purchaseLimit)
	if err != nil {
		return 0, err
	}
	if err := store.LoadTestOpenWaitingRoom(ctx, f.db, id, admitPerMinute); err != nil {
		return 0, fmt.Errorf("fixture waiting room: %w", err)
	}
	return id, nil
}

// SetSaleOpens moves a show's sale opening to at (UTC).
func (f *Fixtures) SetSaleOpens(ctx context.Context, show int64, at time.Time) error {
	if err := store.LoadTestSetSaleOpens(ctx, f.db, show, at.UTC()); err != nil {
		return fmt.Errorf("fixture sale opening: %w", err)
	}
	return nil
}
