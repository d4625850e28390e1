package mail

import (
	"context"
	"encoding/base64"
	"strings"
)

// Mailbox is the development mailbox's view of the outbox (the admins' console page
// /admin/mailbox): the rows, newest first, and one of them written as it is sent
// (Renderer.Preview: from the facts fixed at its event, a reset link redacted).
type Mailbox struct {
	Outbox   *Outbox
	Renderer *Renderer
}

// List returns the rows matching f, newest first (Outbox.List). Errors: UNAVAILABLE.
func (m *Mailbox) List(ctx context.Context, f ListFilter) ([]*Row, error) {
	return m.Outbox.List(ctx, f)
}

// Subjects returns the subject of each row as it is sent, by row id; a row that cannot
// be written is left out.
func (m *Mailbox) Subjects(ctx context.Context, rows []*Row) map[int64]string {
	out := make(map[int64]string, len(rows))
	for _, r := range rows {
		if s, err := m.Renderer.Subject(ctx, r); err == nil {
			out[r.ID] = s
		}
	}
	return out
}

// Message returns row id and its e-mail as Renderer.Preview writes it (as sent, a
// reset link redacted); the row is not changed. A row that cannot be written comes
// back with a nil Rendered and the error in renderErr. Errors: NOT_FOUND (no such
// row), UNAVAILABLE.
func (m *Mailbox) Message(ctx context.Context, id int64) (row *Row, r *Rendered, renderErr error, err error) {
	if row, err = m.Outbox.Get(ctx, id); err != nil {
		return nil, nil, nil, err
	}
	if r, renderErr = m.Renderer.Preview(ctx, row); renderErr != nil {
		return row, nil, renderErr, nil
	}
	return row, r, nil, nil
}

// OrderNow is the status the order of row has now ("pending", "cancelled", ...), for
// the mailbox to show beside the e-mail written at its event; "" when the row names no
// order or it cannot be read.
func (m *Mailbox) OrderNow(ctx context.Context, row *Row) string {
	if row.OrderNo == nil || *row.OrderNo == "" || m.Renderer.Orders == nil {
		return ""
	}
	o, err := m.Renderer.Orders.ByNo(ctx, *row.OrderNo)
	if err != nil {
		return ""
	}
	return o.Status
}

// InlineImages returns html with each cid: reference to one of images replaced by a
// data: URL of the PNG.
func InlineImages(html string, images []Image) string {
	for _, img := range images {
		html = strings.ReplaceAll(html, "cid:"+img.CID, "data:image/png;base64,"+base64.StdEncoding.EncodeToString(img.PNG))
	}
	return html
}
