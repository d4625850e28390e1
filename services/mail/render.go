package mail

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	htmltemplate "html/template"
	"net/url"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"

	qrcode "github.com/skip2/go-qrcode"

	"seatflow/services"
)

// OrderSource reads an order by number, whoever owns it (orders.Orders.ByNo).
// Errors: NOT_FOUND, UNAVAILABLE.
type OrderSource interface {
	ByNo(ctx context.Context, orderNo string) (*services.Order, error)
}

// ShowSource reads a show with its movie, hall and zones, whatever its status
// (catalog.Catalog.Show). Errors: NOT_FOUND, UNAVAILABLE.
type ShowSource interface {
	Show(ctx context.Context, id int64) (*services.Show, error)
}

// TicketSigner makes the signed ticket reference of a paid order (orders.Tickets).
type TicketSigner interface {
	Ref(o *services.Order) string
}

// Rendered is one e-mail ready to send: its subject, plain-text and HTML bodies, and
// the images the HTML shows inline (referenced as cid:<CID>).
type Rendered struct {
	Subject string
	Text    string
	HTML    string
	Images  []Image
}

// Image is an inline image of an e-mail: a PNG named by its Content-ID.
type Image struct {
	CID  string
	Name string
	PNG  []byte
}

// QRContentID is the Content-ID of an order_paid e-mail's ticket QR code.
const QRContentID = "ticket-qr"

// qrModulePixels is the width of one QR module in pixels (the ticket page uses 8; an
// e-mail image is shown at its size, so a little smaller).
const qrModulePixels = 6

// Renderer writes the e-mail of an outbox row from the facts stored with it (Facts,
// fixed when its event happened), so every attempt and the development mailbox write
// the same bytes however the order changed since. Links start with BaseURL
// (SEATFLOW_PUBLIC_URL); times are shown in the zone of the show's cinema (Zone, the
// first cinema's, for facts frozen without it). Secrets opens a reset
// link for the e-mail as sent. Orders and Shows are read only for a row written before
// facts were stored (it is then written from the order as it is now).
type Renderer struct {
	Orders  OrderSource
	Shows   ShowSource
	Tickets TicketSigner
	Secrets *Secrets
	BaseURL string
	Zone    *time.Location
}

// detail is one labelled line of an e-mail's details table.
type detail struct{ Label, Value string }

// content is what the templates lay out, in the reader's language.
type content struct {
	Lang                   string
	Subject, Hello, Intro  string
	Details                []detail
	Action, ActionURL      string
	LinkLabel              string
	Redacted               string // in place of a secret link the page may not show
	TicketLabel, TicketRef string
	CodeLabel, TicketCode  string // the ticket code as staff type it ("K3M9P-QR7TX")
	CodeHint               string
	QRLabel, QRCID         string
	Footer                 string
	Sep                    string // between a label and its value in the text part
	HTMLLang               string
}

//go:embed templates/mail.html
var htmlSource string

//go:embed templates/mail.txt
var textSource string

var (
	htmlTemplate = htmltemplate.Must(htmltemplate.New("mail.html").Parse(htmlSource))
	textTemplate = texttemplate.Must(texttemplate.New("mail.txt").Parse(textSource))
)

// Render writes row's e-mail as it is sent: subject, bodies and (for order_paid) the
// ticket's QR code and ticket code, from the row's facts; a password_reset's link is opened with
// Secrets. Errors: INVALID_REQUEST for a row of an unknown kind, with facts or data
// that do not parse, or a reset without a link that opens; for a row without facts,
// those of the sources (NOT_FOUND when the order or show is gone).
func (r *Renderer) Render(ctx context.Context, row *Row) (*Rendered, error) {
	return r.render(ctx, row, true)
}

// Preview writes row's e-mail as the development mailbox shows it: byte for byte
// Render's, except that a password_reset's link is not opened: a note in the reader's
// language says it is redacted. Errors: as Render, but a reset whose link is missing
// or does not open is still written.
func (r *Renderer) Preview(ctx context.Context, row *Row) (*Rendered, error) {
	return r.render(ctx, row, false)
}

func (r *Renderer) render(ctx context.Context, row *Row, reveal bool) (*Rendered, error) {
	w, data, f, vars, err := r.load(ctx, row)
	if err != nil {
		return nil, err
	}
	c := content{Lang: row.Lang, Hello: w.labels["hello"], Footer: w.labels["footer"], LinkLabel: w.labels["link"], HTMLLang: "en", Sep: w.labels["sep"]}
	if row.UserID == nil && f.Order != nil { // a walk-in's order: no account, no order page to visit
		c.Footer = w.labels["footer_counter"]
	}
	if isChinese(row.Lang) {
		c.HTMLLang = "zh-Hans"
	}
	c.Subject, c.Intro = services.OneLine(fill(w.subject[row.Kind], vars)), fill(w.intro[row.Kind], vars)
	c.Details = r.details(w, row, f, data)
	if c.Action = w.action[row.Kind]; c.Action != "" {
		switch {
		case row.Kind == PasswordReset:
			if !reveal {
				c.Redacted = w.labels["redacted"]
				break
			}
			if c.ActionURL, err = r.resetLink(row, data); err != nil {
				return nil, err
			}
		case f.Order != nil && row.UserID != nil:
			c.ActionURL = r.link("/orders/" + url.PathEscape(f.Order.No))
		default:
			c.Action = ""
		}
	}
	out := &Rendered{Subject: c.Subject}
	tickets := row.Kind == OrderPaid || row.Kind == OrderExchanged // a paid order's new tickets
	if tickets && f.Order != nil && f.Order.Status == services.OrderPaid && f.Order.TicketCode != "" {
		c.CodeLabel, c.TicketCode, c.CodeHint = w.labels["code"], shownTicketCode(f.Order.TicketCode), w.labels["code_hint"]
	}
	if tickets && f.Order != nil && f.Order.Status == services.OrderPaid && r.Tickets != nil {
		c.TicketLabel, c.TicketRef = w.labels["ticket"], r.Tickets.Ref(f.Order.order())
		png, err := qrcode.Encode(c.TicketRef, qrcode.Medium, -qrModulePixels)
		if err != nil {
			return nil, err
		}
		c.QRLabel, c.QRCID = w.labels["qr"], QRContentID
		out.Images = append(out.Images, Image{CID: QRContentID, Name: "ticket-" + f.Order.No + ".png", PNG: png})
	}
	var h, t bytes.Buffer
	if err := htmlTemplate.Execute(&h, c); err != nil {
		return nil, err
	}
	if err := textTemplate.Execute(&t, c); err != nil {
		return nil, err
	}
	out.HTML, out.Text = h.String(), t.String()
	return out, nil
}

// resetLink opens the sealed link of a password_reset row (DataLinkSealed, bound to the
// row's user). Errors: INVALID_REQUEST when there is none or it does not open.
func (r *Renderer) resetLink(row *Row, data map[string]string) (string, error) {
	sealed := data[DataLinkSealed]
	if sealed == "" || row.UserID == nil {
		return "", services.Errorf(services.CodeInvalidRequest, "e-mail %d: a password reset without its link", row.ID)
	}
	if r.Secrets == nil {
		return "", services.Errorf(services.CodeInvalidRequest, "e-mail %d: no key to open the reset link with", row.ID)
	}
	link, err := r.Secrets.Open(sealed, ResetLinkUse(*row.UserID))
	if err != nil {
		return "", services.Errorf(services.CodeInvalidRequest, "e-mail %d: %v", row.ID, err)
	}
	return link, nil
}

// Subject writes only row's subject (Render's, without the bodies and images).
// Errors: as Render.
func (r *Renderer) Subject(ctx context.Context, row *Row) (string, error) {
	w, _, _, vars, err := r.load(ctx, row)
	if err != nil {
		return "", err
	}
	return services.OneLine(fill(w.subject[row.Kind], vars)), nil
}

// load reads row's data and facts (for a row without facts, from the order and show as
// they are now) and the values its words are filled with.
func (r *Renderer) load(ctx context.Context, row *Row) (w *words, data map[string]string, f *Facts, vars map[string]string, err error) {
	w = wordsFor(row.Lang)
	data = map[string]string{}
	if row.Data != nil && *row.Data != "" {
		if err := json.Unmarshal([]byte(*row.Data), &data); err != nil {
			return nil, nil, nil, nil, services.Errorf(services.CodeInvalidRequest, "e-mail %d: data is not a JSON object of strings: %v", row.ID, err)
		}
	}
	if _, ok := w.subject[row.Kind]; !ok {
		return nil, nil, nil, nil, services.Errorf(services.CodeInvalidRequest, "e-mail %d: unknown kind %q", row.ID, row.Kind)
	}
	if f, err = decodeFacts(row); err != nil {
		return nil, nil, nil, nil, err
	}
	if f == nil {
		if f, err = r.factsNow(ctx, row); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	vars = map[string]string{}
	if o := f.Order; o != nil {
		vars["no"] = o.No
		vars["total"] = services.Money(o.TotalMinor, o.Currency)
		vars["deadline"] = r.when(o.ExpiresAt, f, row.Lang)
	}
	if s := f.Show; s != nil {
		vars["movie"], vars["hall"], vars["time"] = services.OneLine(s.Title), services.OneLine(s.Hall), r.when(s.StartsAt, f, row.Lang)
	}
	if o := f.Order; o != nil {
		vars["refunded"] = refundedMoney(o, data)
		vars["refunded_seats"] = services.OneLine(data[DataSeats])
	}
	return w, data, f, vars, nil
}

// factsNow are the facts of a row written before facts were stored: its order and show
// read now. Errors: those of the sources.
func (r *Renderer) factsNow(ctx context.Context, row *Row) (*Facts, error) {
	f := &Facts{}
	var order *services.Order
	if row.OrderNo != nil && *row.OrderNo != "" && r.Orders != nil {
		var err error
		if order, err = r.Orders.ByNo(ctx, *row.OrderNo); err != nil {
			return nil, err
		}
	}
	showID := int64(0)
	if order != nil {
		showID = order.ShowID
	} else if row.ShowID != nil {
		showID = *row.ShowID
	}
	var show *services.Show
	if showID != 0 && r.Shows != nil {
		var err error
		if show, err = r.Shows.Show(ctx, showID); err != nil {
			return nil, err
		}
		f.Show = &ShowFacts{ID: show.ID, Title: show.Movie.Title, Hall: show.HallName, StartsAt: show.StartsAt,
			Cinema: show.CinemaName, TimeZone: show.TimeZone}
		if until, ok := show.SelfRefundUntil(); ok {
			f.Show.SelfRefundUntil = &until
		}
	}
	if order != nil {
		names := map[string]string{}
		if show != nil {
			for _, z := range show.Zones {
				names[z.Code] = z.Name
			}
		}
		f.Order = &OrderFacts{No: order.OrderNo, ShowID: order.ShowID, Status: order.Status, TotalMinor: order.TotalMinor,
			Currency: order.Currency, ExpiresAt: order.ExpiresAt, Voucher: order.Voucher, DiscountMinor: order.DiscountMinor}
		for _, s := range order.Seats {
			sf := SeatFacts{Label: s.Label, Zone: s.ZoneCode, ZoneName: names[s.ZoneCode]}
			if s.TicketType != "" && s.TicketType != services.TicketAdult {
				sf.TicketType = s.TicketType // named by its code here: this path reads no types
			}
			f.Order.Seats = append(f.Order.Seats, sf)
		}
	}
	return f, nil
}

// details lists what the e-mail is about, as its facts say: the order's number, movie,
// hall, start, seats, voucher and saving, total and status, the pay-by deadline of a pending order, and why
// it ended: Data's reason code (or a show cancel's outcome) in the reader's language,
// and the staff's note as they wrote it (reasons.go).
func (r *Renderer) details(w *words, row *Row, f *Facts, data map[string]string) []detail {
	if row.Kind == PasswordReset {
		return nil
	}
	var ds []detail
	add := func(key, value string) {
		if value = services.OneLine(value); value != "" {
			ds = append(ds, detail{w.labels[key], value})
		}
	}
	o := f.Order
	if o != nil {
		add("order", o.No)
	}
	if s := f.Show; s != nil {
		add("movie", s.Title)
		add("cinema", s.Cinema)
		add("hall", s.Hall)
		add("starts", r.when(s.StartsAt, f, row.Lang))
	}
	if o != nil {
		add("seats", seatList(o, row.Lang))
		if o.Voucher != "" {
			add("voucher", o.Voucher+" −"+services.Money(o.DiscountMinor, o.Currency))
		}
		add("total", services.Money(o.TotalMinor, o.Currency))
		add("status", w.status[o.Status])
		if o.Status == services.OrderPending && (row.Kind == OrderCreated || row.Kind == WaitlistOffer) {
			add("pay_by", r.when(o.ExpiresAt, f, row.Lang))
		}
	}
	if row.Kind == OrderPaid && o != nil && o.Status == services.OrderPaid && f.Show != nil && f.Show.SelfRefundUntil != nil && row.UserID != nil {
		add("cancel_until", r.when(*f.Show.SelfRefundUntil, f, row.Lang))
	}
	switch row.Kind {
	case OrderPartRefunded:
		add("refunded_seats", data[DataSeats])
		add("refunded", refundedMoney(o, data))
		add("reason", w.reasonText(data[DataReason]))
		add("note", data[DataNote])
	case OrderCancelled, OrderRefunded, OrderExpired:
		if row.Kind == OrderRefunded && data[DataRefundedMinor] != "" {
			add("refunded", refundedMoney(o, data))
		}
		add("reason", w.reasonText(data[DataReason]))
		add("note", data[DataNote])
	case OrderExchanged:
		add("old_seats", data[DataOldSeats])
	case ShowCancelled:
		add("reason", w.reasonText("outcome_"+data[DataOutcome]))
		add("note", data[DataNote])
	}
	return ds
}

// refundedMoney is the money a refund e-mail tells of: Data's DataRefundedMinor in the
// order's currency, else (a row queued before refunds named their amount) the order's
// total; "" without an order.
func refundedMoney(o *OrderFacts, data map[string]string) string {
	if o == nil {
		return ""
	}
	if n, err := strconv.ParseInt(data[DataRefundedMinor], 10, 64); err == nil {
		return services.Money(n, o.Currency)
	}
	return services.Money(o.TotalMinor, o.Currency)
}

// shownTicketCode is a canonical ticket code as staff read and type it: two groups of
// five joined by a hyphen ("K3M9P-QR7TX"), the form orders.FormatTicketCode gives the
// ticket page and the API (mail sits below orders, so it cannot call it); anything but
// ten characters comes back as it is.
func shownTicketCode(code string) string {
	if len(code) != 10 {
		return code
	}
	return code[:5] + "-" + code[5:]
}

// seatList names an order's seats by zone: "Premium: H5, H6; Standard: A1" (the zone's
// name, else its code), zones in the order's seat order.
func seatList(o *OrderFacts, lang string) string {
	var zones []string
	names := map[string]string{}
	labels := map[string][]string{}
	for _, s := range o.Seats {
		if _, ok := labels[s.Zone]; !ok {
			zones = append(zones, s.Zone)
		}
		labels[s.Zone] = append(labels[s.Zone], s.Label+s.typeSuffix(lang))
		if s.ZoneName != "" {
			names[s.Zone] = s.ZoneName
		}
	}
	parts := make([]string, 0, len(zones))
	for _, z := range zones {
		name := names[z]
		if name == "" {
			name = z
		}
		parts = append(parts, name+": "+strings.Join(labels[z], ", "))
	}
	return strings.Join(parts, "; ")
}

// when formats an instant for the reader in the zone of the show's cinema (f's show;
// Zone when the facts have none): "Mon 30 Nov 2026, 19:30" or "2026年11月30日 周一 19:30".
func (r *Renderer) when(t time.Time, f *Facts, lang string) string {
	loc := r.Zone
	if f != nil && f.Show != nil && f.Show.TimeZone != "" {
		loc = services.Location(f.Show.TimeZone)
	}
	if loc == nil {
		loc = time.UTC
	}
	t = t.In(loc)
	if isChinese(lang) {
		return strconv.Itoa(t.Year()) + "年" + strconv.Itoa(int(t.Month())) + "月" + strconv.Itoa(t.Day()) + "日 " +
			zhWeekdays[t.Weekday()] + " " + t.Format("15:04")
	}
	return t.Format("Mon 2 Jan 2006, 15:04")
}

var zhWeekdays = [...]string{"周日", "周一", "周二", "周三", "周四", "周五", "周六"}

// link is BaseURL joined with path.
func (r *Renderer) link(path string) string {
	base := strings.TrimRight(r.BaseURL, "/")
	if base == "" {
		base = "http://127.0.0.1:8080"
	}
	return base + path
}

// typeSuffix is " (Child)" for a seat of a ticket type other than adult, named in lang
// ("zh-Hans" or English), and "" for adult.
func (s SeatFacts) typeSuffix(lang string) string {
	if s.TicketType == "" {
		return ""
	}
	name := s.TicketName
	if lang == "zh-Hans" && s.TicketNameZh != "" {
		name = s.TicketNameZh
	}
	if name == "" {
		name = s.TicketType
	}
	return " (" + name + ")"
}
