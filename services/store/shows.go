package store

import (
	"context"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
)

// ShowStart is a show's id, start (UTC) and movie title.
type ShowStart struct {
	ID       int64     `db:"id"`
	StartsAt time.Time `db:"starts_at"`
	Title    string    `db:"title"`
}

// ShowSaleTerms are a show's stored status, purchase limit and currency.
type ShowSaleTerms struct {
	Status   string `db:"status"`
	Limit    int    `db:"purchase_limit"`
	Currency string `db:"currency"`
}

const showColumns = `sh.id, sh.movie_id, sh.hall_id, sh.starts_at, sh.sale_opens_at, sh.sale_closes_at,
	sh.status, sh.purchase_limit, sh.self_refund_until_h, sh.waiting_room, sh.admit_per_minute, sh.room_epoch, sh.single_seat_rule, sh.currency, sh.created_at, h.name AS hall_name,
	h.cinema_id, c.name AS cinema_name, c.time_zone,
	m.id AS "movie.id", m.title AS "movie.title", m.runtime_min AS "movie.runtime_min",
	m.rating AS "movie.rating", m.synopsis AS "movie.synopsis"
	FROM shows sh JOIN movies m ON m.id = sh.movie_id JOIN halls h ON h.id = sh.hall_id JOIN cinemas c ON c.id = h.cinema_id`

// ShowByID reads a show with its movie, hall name and cinema (no zones, status as stored); sql.ErrNoRows when there is none.
func ShowByID(ctx context.Context, q Querier, id int64) (*services.Show, error) {
	s := &services.Show{}
	err := q.GetContext(ctx, s, "SELECT "+showColumns+" WHERE sh.id = ?", id)
	return s, err
}

// ShowsStartingBetween lists the shows but drafts starting in [from, to) with their movies and cinemas, by start and hall name.
func ShowsStartingBetween(ctx context.Context, q Querier, from, to time.Time) ([]*services.Show, error) {
	var shows []*services.Show
	err := q.SelectContext(ctx, &shows, "SELECT "+showColumns+
		" WHERE sh.starts_at >= ? AND sh.starts_at < ? AND sh.status <> 'draft' ORDER BY sh.starts_at, h.name", from, to)
	return shows, err
}

// ShowWindow is a span of starts [From, To) (UTC) of the halls of some cinemas: one
// local day of the cinemas that share a time zone.
type ShowWindow struct {
	CinemaIDs []int64
	From, To  time.Time
}

// ShowsStartingIn lists the shows but drafts of the windows' cinemas starting within their window, by start and hall name.
func ShowsStartingIn(ctx context.Context, q Querier, windows []ShowWindow) ([]*services.Show, error) {
	shows := []*services.Show{}
	if len(windows) == 0 {
		return shows, nil
	}
	where := make([]string, 0, len(windows))
	var args []any
	for _, w := range windows {
		part, wargs, err := sqlx.In("(h.cinema_id IN (?) AND sh.starts_at >= ? AND sh.starts_at < ?)", w.CinemaIDs, w.From, w.To)
		if err != nil {
			return nil, err
		}
		where = append(where, part)
		args = append(args, wargs...)
	}
	err := q.SelectContext(ctx, &shows, "SELECT "+showColumns+" WHERE sh.status <> 'draft' AND ("+
		strings.Join(where, " OR ")+") ORDER BY sh.starts_at, h.name", args...)
	return shows, err
}

// LockShow reads a show's row locked for update (no movie, zones or hall name); sql.ErrNoRows when there is none.
func LockShow(ctx context.Context, q Querier, id int64) (*services.Show, error) {
	s := &services.Show{}
	err := q.GetContext(ctx, s, `SELECT id, movie_id, hall_id, starts_at, sale_opens_at, sale_closes_at, status,
		purchase_limit, self_refund_until_h, waiting_room, admit_per_minute, room_epoch, single_seat_rule, currency, created_at FROM shows WHERE id = ? FOR UPDATE`, id)
	return s, err
}

// LockShowSaleTerms reads a show's status, purchase limit and currency locked for update; sql.ErrNoRows when there is none.
func LockShowSaleTerms(ctx context.Context, q Querier, id int64) (ShowSaleTerms, error) {
	var t ShowSaleTerms
	err := q.GetContext(ctx, &t, "SELECT status, purchase_limit, currency FROM shows WHERE id = ? FOR UPDATE", id)
	return t, err
}

// ShowCurrency returns a show's currency; sql.ErrNoRows when there is none.
func ShowCurrency(ctx context.Context, q Querier, id int64) (string, error) {
	var currency string
	err := q.GetContext(ctx, &currency, "SELECT currency FROM shows WHERE id = ?", id)
	return currency, err
}

// ShowIDAt returns the id of the show of a hall starting at starts; sql.ErrNoRows when there is none.
func ShowIDAt(ctx context.Context, q Querier, hallID int64, starts time.Time) (int64, error) {
	var id int64
	err := q.GetContext(ctx, &id, "SELECT id FROM shows WHERE hall_id = ? AND starts_at = ?", hallID, starts)
	return id, err
}

const insertShowSQL = ` INTO shows (movie_id, hall_id, starts_at, sale_opens_at, sale_closes_at, status, purchase_limit,
	self_refund_until_h, waiting_room, admit_per_minute, single_seat_rule, currency, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

func insertShowArgs(s *services.Show) []any {
	return []any{s.MovieID, s.HallID, s.StartsAt, s.SaleOpensAt, s.SaleClosesAt, s.Status, s.PurchaseLimit, s.SelfRefundUntilH,
		s.WaitingRoom, s.AdmitPerMinute, s.SingleSeatRule, s.Currency, s.CreatedAt}
}

// InsertShow inserts s's row (Status stored as it is; ID, zones and movie ignored) and returns its id.
func InsertShow(ctx context.Context, q Querier, s *services.Show) (int64, error) {
	res, err := q.ExecContext(ctx, "INSERT"+insertShowSQL, insertShowArgs(s)...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// InsertShowIfFree inserts s's row like InsertShow unless its hall has a show at its start; inserted false and id 0 then.
func InsertShowIfFree(ctx context.Context, q Querier, s *services.Show) (id int64, inserted bool, err error) {
	res, err := q.ExecContext(ctx, "INSERT IGNORE"+insertShowSQL, insertShowArgs(s)...)
	if err != nil {
		return 0, false, err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return 0, false, nil
	}
	id, err = res.LastInsertId()
	return id, err == nil, err
}

// SetShowSale writes a show's sale window, purchase limit, self-refund cut-off, waiting room (and its epoch), single-seat rule and StoredStatus.
func SetShowSale(ctx context.Context, q Querier, s *services.Show) error {
	_, err := q.ExecContext(ctx, `UPDATE shows SET sale_opens_at = ?, sale_closes_at = ?, purchase_limit = ?, self_refund_until_h = ?,
			waiting_room = ?, admit_per_minute = ?, room_epoch = ?, single_seat_rule = ?, status = ? WHERE id = ?`,
		s.SaleOpensAt, s.SaleClosesAt, s.PurchaseLimit, s.SelfRefundUntilH, s.WaitingRoom, s.AdmitPerMinute, s.RoomEpoch, s.SingleSeatRule, s.StoredStatus, s.ID)
	return err
}

// HallShowIDsAfter lists the ids of a hall's shows (any status) starting after now, by id.
func HallShowIDsAfter(ctx context.Context, q Querier, hallID int64, now time.Time) ([]int64, error) {
	var ids []int64
	err := q.SelectContext(ctx, &ids, "SELECT id FROM shows WHERE hall_id = ? AND starts_at > ? ORDER BY id", hallID, now)
	return ids, err
}

// HallShowsAhead lists a hall's shows starting after now whose stored status is not except, by start and id.
func HallShowsAhead(ctx context.Context, q Querier, hallID int64, now time.Time, except string) ([]ShowStart, error) {
	var shows []ShowStart
	err := q.SelectContext(ctx, &shows, `SELECT sh.id, m.title, sh.starts_at FROM shows sh JOIN movies m ON m.id = sh.movie_id
		WHERE sh.hall_id = ? AND sh.starts_at > ? AND sh.status <> ? ORDER BY sh.starts_at, sh.id`, hallID, now, except)
	return shows, err
}

// ShowsOpeningBetween lists the shows neither cancelled nor draft whose sale opens in (from, to] and closes after now, by opening and id.
func ShowsOpeningBetween(ctx context.Context, q Querier, from, to, now time.Time) ([]int64, error) {
	var ids []int64
	err := q.SelectContext(ctx, &ids, `SELECT id FROM shows WHERE status NOT IN ('cancelled', 'draft')
		AND sale_opens_at > ? AND sale_opens_at <= ? AND sale_closes_at > ? ORDER BY sale_opens_at, id`, from, to, now)
	return ids, err
}

// OverlappingShow returns one show of a hall, not cancelled and not except, occupying any of [starts, ends) with cleaningMin minutes after its runtime; ok false when none.
func OverlappingShow(ctx context.Context, q Querier, hallID, except int64, starts, ends time.Time, cleaningMin int) (ShowStart, bool, error) {
	var clash []ShowStart
	err := q.SelectContext(ctx, &clash, `SELECT sh.id, sh.starts_at, m.title FROM shows sh JOIN movies m ON m.id = sh.movie_id
		WHERE sh.hall_id = ? AND sh.id <> ? AND sh.status <> 'cancelled' AND sh.starts_at < ?
		AND DATE_ADD(sh.starts_at, INTERVAL (m.runtime_min + ?) MINUTE) > ? LIMIT 1`,
		hallID, except, ends, cleaningMin, starts)
	if err != nil || len(clash) == 0 {
		return ShowStart{}, false, err
	}
	return clash[0], true, nil
}
