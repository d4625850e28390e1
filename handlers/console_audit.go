package handlers

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/staff"
	"seatflow/views"
)

// Page sizes of the audit log (page and API ?limit=).
const (
	defaultAuditLimit = 50
	maxAuditLimit     = 200
)

// auditQuery is a parsed audit filter with the paging cursor and page size.
type auditQuery struct {
	Filter audit.AuditFilter
	Form   views.AuditFilterForm
}

// parseAuditQuery reads ?actor=&action=&entity=&entity_id=&cinema_id=&from=&to=&limit=&before_id=
// (from and to are local dates YYYY-MM-DD in loc, both days included). The filter asks
// for one entry more than the page size, so the caller knows whether older ones exist.
// Errors: INVALID_REQUEST with a message for people.
func parseAuditQuery(c *fiber.Ctx, loc *time.Location) (auditQuery, error) {
	q := auditQuery{Form: views.AuditFilterForm{
		Actor:    strings.TrimSpace(utils.CopyString(c.Query("actor"))),
		Action:   strings.TrimSpace(utils.CopyString(c.Query("action"))),
		Entity:   strings.TrimSpace(utils.CopyString(c.Query("entity"))),
		EntityID: strings.TrimSpace(utils.CopyString(c.Query("entity_id"))),
		CinemaID: strings.TrimSpace(utils.CopyString(c.Query("cinema_id"))),
		From:     strings.TrimSpace(utils.CopyString(c.Query("from"))),
		To:       strings.TrimSpace(utils.CopyString(c.Query("to"))),
		Limit:    strings.TrimSpace(utils.CopyString(c.Query("limit"))),
	}}
	f := audit.AuditFilter{ActorEmail: q.Form.Actor, Action: q.Form.Action, Entity: q.Form.Entity, EntityID: q.Form.EntityID}
	limit, err := queryLimit(c, defaultAuditLimit, maxAuditLimit)
	if err != nil {
		return q, err
	}
	f.Limit = limit + 1
	if b := c.Query("before_id"); b != "" {
		n, ok := parseID(b)
		if !ok {
			return q, invalid("the paging cursor before_id must be the id of an audit entry, such as 120")
		}
		f.BeforeID = n
	}
	if v := q.Form.CinemaID; v != "" {
		n, ok := parseID(v)
		if !ok {
			return q, invalid("cinema_id must be the id of a cinema, such as 2")
		}
		f.CinemaID = n
	}
	if q.Form.From != "" {
		day, err := time.ParseInLocation(time.DateOnly, q.Form.From, loc)
		if err != nil {
			return q, invalid("from must be a date such as 2026-11-30")
		}
		f.From = day.UTC()
	}
	if q.Form.To != "" {
		day, err := time.ParseInLocation(time.DateOnly, q.Form.To, loc)
		if err != nil {
			return q, invalid("to must be a date such as 2026-11-30")
		}
		f.To = day.AddDate(0, 0, 1).UTC() // the whole last day
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		return q, invalid("the from date must not be after the to date")
	}
	q.Filter = f
	return q, nil
}

// page cuts the extra entry the filter asked for and returns the cursor of the next
// (older) page, 0 when there is none.
func (q auditQuery) page(entries []*audit.AuditEntry) ([]*audit.AuditEntry, int64) {
	if n := q.Filter.Limit - 1; len(entries) > n {
		return entries[:n], entries[n-1].ID
	}
	return entries, 0
}

// auditPage is the filterable audit log, newest first, with an "older entries" link
// (by id cursor). A bad filter shows the form again with the message (400).
func (d *Deps) auditPage(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	actions, entities, err := d.Audit.Kinds(ctx)
	if err != nil {
		return errorPage(c, err)
	}
	zone := d.pageZone(ctx, c)
	q, perr := parseAuditQuery(c, zone)
	cinemas, err := d.Cinemas.Cinemas(ctx)
	if err != nil {
		return errorPage(c, err)
	}
	props := views.AuditPageProps{Page: page(c, "Audit log"), Zone: zone, Form: q.Form, Actions: actions, Entities: entities,
		Cinemas: services.InCinemaScope(cinemaScope(c), cinemas, func(x services.Cinema) int64 { return x.ID })}
	if perr != nil {
		_, se := pageError(c, perr)
		props.Error = sentence(se.Message)
		return render(c, fiber.StatusBadRequest, views.AuditPage(props))
	}
	entries, err := d.Audit.List(ctx, q.Filter)
	if err != nil {
		st, se := pageError(c, err)
		if st >= fiber.StatusInternalServerError {
			return renderErrorPage(c, st, se.Message)
		}
		props.Error = "“" + q.Form.Actor + "” is not a usable email address."
		if se.Code != services.CodeInvalidRequest {
			props.Error = sentence(se.Message)
		}
		return render(c, st, views.AuditPage(props))
	}
	var older int64
	var shown []*audit.AuditEntry
	shown, older = q.page(entries)
	props.Entries = auditEntriesView(shown)
	props.EntryZones = d.auditZones(ctx, props.Entries)
	if older > 0 {
		props.OlderURL = auditURL(q.Form, older)
	}
	if q.Filter.BeforeID > 0 {
		props.NewestURL = auditURL(q.Form, 0)
	}
	return render(c, fiber.StatusOK, views.AuditPage(props))
}

// auditURL is the audit page with the form's filter and, when beforeID > 0, the cursor.
func auditURL(f views.AuditFilterForm, beforeID int64) string {
	v := url.Values{}
	for k, s := range map[string]string{"actor": f.Actor, "action": f.Action, "entity": f.Entity, "entity_id": f.EntityID,
		"from": f.From, "to": f.To, "limit": f.Limit, "cinema_id": f.CinemaID} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if beforeID > 0 {
		v.Set("before_id", strconv.FormatInt(beforeID, 10))
	}
	if len(v) == 0 {
		return "/admin/audit"
	}
	return "/admin/audit?" + v.Encode()
}

// auditZones returns, by entry id, the zone of each entry about a show or an order: its
// show's cinema's (a row about a show tells that cinema's local time); other entries
// are told in the page's zone.
func (d *Deps) auditZones(ctx context.Context, entries []*views.AuditEntry) map[int64]*time.Location {
	if d.Scopes == nil || d.Cinemas == nil {
		return nil
	}
	cinemas, err := d.Cinemas.Cinemas(ctx)
	if err != nil || len(cinemas) < 2 {
		return nil
	}
	locs := make(map[int64]*time.Location, len(cinemas))
	for _, cn := range cinemas {
		locs[cn.ID] = cn.Loc()
	}
	kinds := map[string]string{"show": staff.ScopeShow, "order": staff.ScopeOrder}
	seen := map[string]*time.Location{}
	out := map[int64]*time.Location{}
	for _, e := range entries {
		kind, ok := kinds[e.Entity]
		if !ok || e.EntityID == "" {
			continue
		}
		key := kind + "/" + e.EntityID
		loc, done := seen[key]
		if !done {
			if id, found, err := d.Scopes.CinemaOf(ctx, kind, e.EntityID); err == nil && found {
				loc = locs[id]
			}
			seen[key] = loc
		}
		if loc != nil {
			out[e.ID] = loc
		}
	}
	return out
}
