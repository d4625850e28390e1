package handlers

import (
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"seatflow/services/mail"
	"seatflow/views"
)

// mailboxLimit is how many outbox rows the development mailbox lists (each subject is
// written from the facts stored with its row).
const mailboxLimit = 100

// mailboxPage is the development mailbox: the e-mail outbox, newest first, filtered by
// ?to= (a part of the recipient's address).
func (d *Deps) mailboxPage(c *fiber.Ctx) error {
	to := strings.TrimSpace(utils.CopyString(c.Query("to")))
	ctx, cancel := ctxOf(c)
	defer cancel()
	rows, err := d.Mailbox.List(ctx, mail.ListFilter{To: to, Limit: mailboxLimit})
	if err != nil {
		return errorPage(c, err)
	}
	return render(c, fiber.StatusOK, views.MailboxPage(views.MailboxPageProps{
		Page: page(c, "Mailbox"), Rows: mailRowsView(rows), Subjects: d.Mailbox.Subjects(ctx, rows), To: to, Zone: d.Shows.Zone(), Limit: mailboxLimit}))
}

// mailboxMessagePage shows one outbox row: its state and its e-mail as it is sent,
// from the facts its event saw (the HTML in a sandboxed frame, the text, the inline
// images; a reset link redacted); 404 for an unknown row.
func (d *Deps) mailboxMessagePage(c *fiber.Ctx) error {
	id, ok := idParam(c, "id")
	if !ok {
		return renderErrorPage(c, fiber.StatusNotFound, "There is no such e-mail.")
	}
	ctx, cancel := ctxOf(c)
	defer cancel()
	row, r, renderErr, err := d.Mailbox.Message(ctx, id)
	if err != nil {
		return errorPage(c, err)
	}
	p := views.MailboxMessageProps{Page: page(c, "E-mail "+views.MailboxID(row.ID)), Row: mailRowView(row), Rendered: mailRenderedView(r), Zone: d.Shows.Zone(),
		OrderNow: d.Mailbox.OrderNow(ctx, row)}
	if renderErr != nil {
		p.RenderError = renderErr.Error()
	} else {
		p.HTML = mail.InlineImages(r.HTML, r.Images)
	}
	return render(c, fiber.StatusOK, views.MailboxMessage(p))
}
