package orders

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/mail"
	"seatflow/services/store"
)

// RefundRequest is one refund of a paid order (API.md "Refunds"). SeatIDs are the seats
// to give back; none means every seat the order still has (a whole refund). ActorID is
// the staff member who refunds (0: the buyer's own cancellation, stored as NULL).
// Reason is stored on the refund and, when the order ends, as its cancel_reason. Mail is
// the e-mail of a refund that ends the order (its Kind and Data); a refund of part of
// the order sends order_part_refunded, with Mail's Data (a reason code, a note) added.
// Audit, when set, writes the audit entry as AuditAction with AuditBefore and what
// AuditAfter returns for the refund (both marshalled to JSON).
type RefundRequest struct {
	SeatIDs     []int64
	ActorID     int64
	Reason      string
	Mail        mail.Message
	Audit       *audit.Audit
	AuditAction string
	AuditBefore any
	AuditAfter  func(r *RefundDone) any
}

// RefundDone is what a refund did: its row (ID, RefundID, amount, time) and seats, the
// labels of those seats, whether it ended the order (refunded) and how much it took back
// from each payment.
type RefundDone struct {
	Refund   store.RefundRow
	Seats    []store.RefundSeatRow
	Labels   []string
	Ended    bool
	Payments []RefundPart
}

// RefundPart is the part of one refund that one payment gives back: AmountMinor of
// Payment, under ID (the provider's idempotency key: the refund's RefundID, with the
// payment's position when one refund spans several payments).
type RefundPart struct {
	Payment     *Payment
	AmountMinor int64
	ID          string
}

// NewRefundID returns a fresh stable name for a refund of order orderNo ("rf-" + the
// number + 12 random hex digits): stored with the refund (refunds.refund_id) and the
// provider's idempotency key, so a retry of the refund never gives money back twice.
func NewRefundID(orderNo string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "rf-" + orderNo + "-" + hex.EncodeToString(b[:])
}

// Refund gives back money of the paid order (as read by the caller) in one transaction:
// it locks the order's row (so refunds of one order run one after another), reads its
// live seats, checks req.SeatIDs against them, records the refund (refunds and
// refund_seats: each seat's money is its price_minor, already less its voucher saving),
// raises the refunded part of the payments that took the money (payments.refunded_minor),
// and moves the order through Transition: the last seats end it (paid -> refunded,
// invariant 5), fewer end only those seats (the order stays paid) and give back their
// voucher uses; the e-mail and audit entry go in the same transaction. Only then the
// provider of each payment is asked once per part (a stable ID; a failure is logged and
// counted, to be refunded by hand), and the seats are freed in the seat cache
// (owner-checked, so they leave the buyer's purchase limit; a Redis failure goes to the
// seat-sync outbox). It reports false with nothing written when the order is not paid
// any more. Errors: INVALID_REQUEST (a seat that is not the order's; seats lists them),
// ORDER_STATE (a seat already refunded, also by a racing refund; seats lists them),
// UNAVAILABLE.
func (p *Payments) Refund(ctx context.Context, order *services.Order, req RefundRequest) (*RefundDone, bool, error) {
	if dup := duplicateID(req.SeatIDs); dup != 0 {
		return nil, false, services.Errorf(services.CodeInvalidRequest, "seat %d is named twice", dup)
	}
	o := p.orders
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), store.DBTimeout)
	defer cancel()
	var done *RefundDone
	won := false
	err := store.InTx(ctx, p.db, func(tx *sqlx.Tx) error {
		done, won = nil, false
		status, err := store.LockOrderStatus(ctx, tx, order.ID)
		if err != nil {
			return err
		}
		if status != services.OrderPaid {
			return nil
		}
		live, err := store.LockLiveOrderSeats(ctx, tx, order.ID)
		if err != nil {
			return err
		}
		pick, err := pickRefundSeats(order, live, req.SeatIDs, func(id int64) string { return o.seatLabel(ctx, order.ShowID, id) })
		if err != nil {
			return err
		}
		now := o.clock.Now().UTC()
		done = &RefundDone{Ended: len(pick) == len(live),
			Refund: store.RefundRow{RefundID: NewRefundID(order.OrderNo), OrderID: order.ID, Currency: order.Currency,
				Reason: req.Reason, CreatedAt: now}}
		if req.ActorID != 0 {
			actor := req.ActorID
			done.Refund.ActorID = &actor
		}
		ids := make([]int64, len(pick))
		for i, s := range pick {
			ids[i] = s.SeatID
			done.Refund.AmountMinor += s.PriceMinor
			done.Seats = append(done.Seats, store.RefundSeatRow{SeatID: s.SeatID, AmountMinor: s.PriceMinor})
			done.Labels = append(done.Labels, s.Label)
		}
		record := func(ctx context.Context, tx *sqlx.Tx) error {
			if err := store.InsertRefund(ctx, tx, &done.Refund, done.Seats); err != nil {
				return err
			}
			pays, err := store.LockApprovedPayments(ctx, tx, order.ID)
			if err != nil {
				return err
			}
			done.Payments = refundParts(pays, done.Refund.AmountMinor, done.Ended, done.Refund.RefundID)
			for _, part := range done.Payments {
				if err := store.RefundPaymentPart(ctx, tx, part.Payment.ID, part.AmountMinor, now); err != nil {
					return err
				}
			}
			return nil
		}
		paid := *order
		paid.Status = services.OrderPaid
		ch := Change{To: services.OrderRefunded, Reason: req.Reason, At: now, Then: record}
		msg := req.Mail
		msg.Data = cloneData(msg.Data)
		msg.Data[mail.DataRefundedMinor] = strconv.FormatInt(done.Refund.AmountMinor, 10)
		if !done.Ended {
			ch.To, ch.Reason, ch.EndSeats = services.OrderPaid, "", ids
			msg.Kind, msg.Key = mail.OrderPartRefunded, string(mail.OrderPartRefunded)+":"+done.Refund.RefundID
			msg.Data[mail.DataSeats] = strings.Join(done.Labels, ", ")
			delete(msg.Data, mail.DataReason) // the order goes on: no reason it ended (the staff's note stays)
		}
		ch.Mail = &msg
		if req.Audit != nil {
			ch.Audit = &ChangeAudit{Log: req.Audit, Actor: req.ActorID, Action: req.AuditAction, Before: req.AuditBefore,
				After: lazyJSON(func() any {
					if req.AuditAfter == nil {
						return nil
					}
					return req.AuditAfter(done)
				})}
		}
		won, err = o.Transition(ctx, tx, &paid, ch)
		return err
	})
	if err != nil {
		return nil, false, refundError(order, err)
	}
	if !won {
		return nil, false, nil
	}
	p.afterRefund(ctx, order, done)
	return done, true, nil
}

// afterRefund runs the refund's steps outside MySQL once it committed: one provider call
// per part, then the seat cache (the order's seats when it ended, else the seats given back).
func (p *Payments) afterRefund(ctx context.Context, order *services.Order, done *RefundDone) {
	o := p.orders
	if done.Ended {
		o.metrics.OrdersRefunded.Inc()
	}
	for _, part := range done.Payments {
		pay := *part.Payment
		pay.OrderNo = order.OrderNo
		pr, ok := p.ProviderNamed(pay.Provider)
		if !ok {
			o.metrics.RefundErrors.Inc()
			o.log.Error("refund: payment provider not configured; refund it by hand", "payment_id", pay.PaymentID,
				"provider", pay.Provider, "refund_id", part.ID, "amount_minor", part.AmountMinor)
			continue
		}
		if err := pr.Refund(ctx, &pay, Refund{AmountMinor: part.AmountMinor, ID: part.ID}); err != nil {
			o.metrics.RefundErrors.Inc()
			o.log.Error("refund failed at the provider; refund it by hand", "payment_id", pay.PaymentID, "order_no", order.OrderNo,
				"refund_id", part.ID, "amount_minor", part.AmountMinor, "err", err)
		}
	}
	fresh, err := o.orderByID(ctx, order.ID)
	if err == nil {
		err = o.SyncSeats(ctx, fresh)
	}
	if err != nil {
		o.QueueSeatSync(order, err)
	}
}

// pickRefundSeats returns the live seats a refund gives back: ids, or all of live when
// ids is empty; labelOf names a seat that is not the order's. Errors: INVALID_REQUEST
// naming the seats that are not the order's, ORDER_STATE naming those already refunded
// (or otherwise ended).
func pickRefundSeats(order *services.Order, live []services.OrderSeat, ids []int64, labelOf func(int64) string) ([]services.OrderSeat, error) {
	if len(ids) == 0 {
		return live, nil
	}
	byID := make(map[int64]services.OrderSeat, len(live))
	for _, s := range live {
		byID[s.SeatID] = s
	}
	labels := make(map[int64]string, len(order.Seats))
	for _, s := range order.Seats {
		labels[s.SeatID] = s.Label
	}
	var pick []services.OrderSeat
	var foreign, ended []string
	for _, id := range ids {
		if s, ok := byID[id]; ok {
			pick = append(pick, s)
			continue
		}
		if l, ok := labels[id]; ok {
			ended = append(ended, l)
		} else {
			foreign = append(foreign, labelOf(id))
		}
	}
	if len(foreign) > 0 {
		return nil, &services.Error{Code: services.CodeInvalidRequest, Seats: foreign,
			Message: "seat " + strings.Join(foreign, ", ") + " is not in order " + order.OrderNo}
	}
	if len(ended) > 0 {
		return nil, seatsRefunded(ended)
	}
	return pick, nil
}

// seatLabel is the label of seat id of the show's hall (the cached hall), or the id when
// the hall has no such seat or cannot be read.
func (o *Orders) seatLabel(ctx context.Context, showID, id int64) string {
	if show, err := o.catalog.CachedShow(ctx, showID); err == nil {
		if hall, err := o.catalog.Hall(ctx, show.HallID); err == nil {
			if s, ok := hall.Seat(id); ok {
				return s.Label
			}
		}
	}
	return strconv.FormatInt(id, 10)
}

// seatsRefunded is the ORDER_STATE of seats a refund gave back before.
func seatsRefunded(labels []string) error {
	return &services.Error{Code: services.CodeOrderState, Seats: labels,
		Message: "seat " + strings.Join(labels, ", ") + " is already refunded"}
}

// refundParts splits amount over the approved payments pays (oldest first): each gives
// back at most what it still has (amount less refunded); a refund that ends the order
// gives back all of every payment. A part's ID is refundID, followed by ".<n>" for the
// second and later payments.
func refundParts(pays []*Payment, amount int64, ended bool, refundID string) []RefundPart {
	var parts []RefundPart
	for _, pay := range pays {
		left := pay.AmountMinor - pay.RefundedMinor
		take := min(left, amount)
		if ended {
			take = left
		}
		if take <= 0 {
			continue
		}
		id := refundID
		if len(parts) > 0 {
			id += "." + strconv.Itoa(len(parts)+1)
		}
		parts = append(parts, RefundPart{Payment: pay, AmountMinor: take, ID: id})
		amount -= take
	}
	return parts
}

// refundError maps a refund transaction's error: a seat refunded by a racing refund
// (the refund_seats key, or a seat no longer live) is ORDER_STATE; a service error stays;
// anything else is UNAVAILABLE.
func refundError(order *services.Order, err error) error {
	switch {
	case errors.Is(err, store.ErrSeatRefunded), errors.Is(err, store.ErrSeatsChanged):
		return services.Errorf(services.CodeOrderState, "a seat of order %s was refunded meanwhile", order.OrderNo)
	case services.ErrorCode(err) != "":
		return err
	}
	return store.Unavailable("the database", err)
}

// duplicateID returns an id named twice in ids, or 0.
func duplicateID(ids []int64) int64 {
	s := slices.Clone(ids)
	slices.Sort(s)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return s[i]
		}
	}
	return 0
}

// cloneData copies an e-mail's Data (never nil).
func cloneData(d map[string]string) map[string]string {
	out := make(map[string]string, len(d)+2)
	for k, v := range d {
		out[k] = v
	}
	return out
}

// lazyJSON is a value marshalled by calling f when it is written (an audit entry's After
// that depends on what the transaction did before the entry).
type lazyJSON func() any

// MarshalJSON marshals what f returns.
func (l lazyJSON) MarshalJSON() ([]byte, error) { return json.Marshal(l()) }
