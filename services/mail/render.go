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

// Renderer writes the e-mail of an outbox row at delivery time, from the row and what
// it names: the order (read afresh), its show, and for order_paid the ticket. Links
// start with BaseURL (SEATFLOW_PUBLIC_URL); times are shown in Zone, the cinema's.
type Renderer struct {
	Orders  OrderSource
	Shows   ShowSource
	Tickets TicketSigner
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
	TicketLabel, TicketRef string
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

// Render writes row's e-mail. A row about an order reads the order and its show; a
// show_cancelled row without an order reads the show only. Errors: those of the
// sources (NOT_FOUND when the order or show is gone: the e-mail cannot be written),
// INVALID_REQUEST for a row of an unknown kind or without the link its kind needs.
func (r *Renderer) Render(ctx context.Context, row *Row) (*Rendered, error) {
	w, data, order, show, vars, err := r.load(ctx, row)
	if err != nil {
		return nil, err
	}
	c := content{Lang: row.Lang, Hello: w.labels["hello"], Footer: w.labels["footer"], LinkLabel: w.labels["link"], HTMLLang: "en", Sep: w.labels["sep"]}
	if isChinese(row.Lang) {
		c.HTMLLang = "zh-Hans"
	}
	c.Subject, c.Intro = fill(w.subject[row.Kind], vars), fill(w.intro[row.Kind], vars)
	c.Details = r.details(w, row, order, show, data)
	if c.Action = w.action[row.Kind]; c.Action != "" {
		switch {
		case row.Kind == PasswordReset:
			c.ActionURL = data["link"]
			if c.ActionURL == "" {
				return nil, services.Errorf(services.CodeInvalidRequest, "e-mail %d: a password reset without its link", row.ID)
			}
		case order != nil:
			c.ActionURL = r.link("/orders/" + url.PathEscape(order.OrderNo))
		default:
			c.Action = ""
		}
	}
	out := &Rendered{Subject: c.Subject}
	if row.Kind == OrderPaid && order != nil && order.Status == services.OrderPaid && r.Tickets != nil {
		c.TicketLabel, c.TicketRef = w.labels["ticket"], r.Tickets.Ref(order)
		png, err := qrcode.Encode(c.TicketRef, qrcode.Medium, -qrModulePixels)
		if err != nil {
			return nil, err
		}
		c.QRLabel, c.QRCID = w.labels["qr"], QRContentID
		out.Images = append(out.Images, Image{CID: QRContentID, Name: "ticket-" + order.OrderNo + ".png", PNG: png})
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

// Subject writes only row's subject (Render's, without the bodies and images).
// Errors: as Render.
func (r *Renderer) Subject(ctx context.Context, row *Row) (string, error) {
	w, _, _, _, vars, err := r.load(ctx, row)
	if err != nil {
		return "", err
	}
	return fill(w.subject[row.Kind], vars), nil
}

// load reads what row names and the values its words are filled with.
func (r *Renderer) load(ctx context.Context, row *Row) (w *words, data map[string]string, order *services.Order, show *services.Show, vars map[string]string, err error) {
	w = wordsFor(row.Lang)
	data = map[string]string{}
	if row.Data != nil && *row.Data != "" {
		if err := json.Unmarshal([]byte(*row.Data), &data); err != nil {
			return nil, nil, nil, nil, nil, services.Errorf(services.CodeInvalidRequest, "e-mail %d: data is not a JSON object of strings: %v", row.ID, err)
		}
	}
	if _, ok := w.subject[row.Kind]; !ok {
		return nil, nil, nil, nil, nil, services.Errorf(services.CodeInvalidRequest, "e-mail %d: unknown kind %q", row.ID, row.Kind)
	}
	if row.OrderNo != nil && *row.OrderNo != "" {
		if order, err = r.Orders.ByNo(ctx, *row.OrderNo); err != nil {
			return nil, nil, nil, nil, nil, err
		}
	}
	showID := int64(0)
	if order != nil {
		showID = order.ShowID
	} else if row.ShowID != nil {
		showID = *row.ShowID
	}
	if showID != 0 {
		if show, err = r.Shows.Show(ctx, showID); err != nil {
			return nil, nil, nil, nil, nil, err
		}
	}
	vars = map[string]string{}
	if order != nil {
		vars["no"] = order.OrderNo
		vars["total"] = services.Money(order.TotalMinor, order.Currency)
		vars["deadline"] = r.when(order.ExpiresAt, row.Lang)
	}
	if show != nil {
		vars["movie"], vars["hall"], vars["time"] = show.Movie.Title, show.HallName, r.when(show.StartsAt, row.Lang)
	}
	return w, data, order, show, vars, nil
}

// details lists what the e-mail is about: the order's number, movie, hall, start,
// seats, total and status, the pay-by deadline of a pending order, and why it ended:
// Data's reason code (or a show cancel's outcome) in the reader's language, and the
// staff's note as they wrote it (reasons.go).
func (r *Renderer) details(w *words, row *Row, order *services.Order, show *services.Show, data map[string]string) []detail {
	if row.Kind == PasswordReset {
		return nil
	}
	var ds []detail
	add := func(key, value string) {
		if value != "" {
			ds = append(ds, detail{w.labels[key], value})
		}
	}
	if order != nil {
		add("order", order.OrderNo)
	}
	if show != nil {
		add("movie", show.Movie.Title)
		add("hall", show.HallName)
		add("starts", r.when(show.StartsAt, row.Lang))
	}
	if order != nil {
		add("seats", seatList(order, show))
		add("total", services.Money(order.TotalMinor, order.Currency))
		add("status", w.status[order.Status])
		if order.Status == services.OrderPending && (row.Kind == OrderCreated || row.Kind == WaitlistOffer) {
			add("pay_by", r.when(order.ExpiresAt, row.Lang))
		}
	}
	switch row.Kind {
	case OrderCancelled, OrderRefunded, OrderExpired:
		add("reason", w.reasonText(data[DataReason]))
		add("note", data[DataNote])
	case ShowCancelled:
		add("reason", w.reasonText("outcome_"+data[DataOutcome]))
		add("note", data[DataNote])
	}
	return ds
}

// seatList names an order's seats by zone: "Premium: H5, H6; Standard: A1" (the zone's
// name from the show's prices, else its code), zones in the order's seat order.
func seatList(order *services.Order, show *services.Show) string {
	names := map[string]string{}
	if show != nil {
		for _, z := range show.Zones {
			names[z.Code] = z.Name
		}
	}
	var zones []string
	labels := map[string][]string{}
	for _, s := range order.Seats {
		if _, ok := labels[s.ZoneCode]; !ok {
			zones = append(zones, s.ZoneCode)
		}
		labels[s.ZoneCode] = append(labels[s.ZoneCode], s.Label)
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

// when formats an instant in the cinema's zone for the reader: "Mon 30 Nov 2026, 19:30"
// or "2026年11月30日 周一 19:30".
func (r *Renderer) when(t time.Time, lang string) string {
	loc := r.Zone
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
