package handlers

import (
	"seatflow/services/accounts"
	"seatflow/services/audit"
	"seatflow/services/orders"
	"seatflow/services/staff"
	"seatflow/views"
)

// The view models: views take plain structs and import no service package, so the
// handlers copy what a service answers into them here, field by field.

// userAccountsView copies accounts for the users and roles page.
func userAccountsView(in []*accounts.UserAccount) []*views.UserAccount {
	out := make([]*views.UserAccount, len(in))
	for i, u := range in {
		out[i] = &views.UserAccount{ID: u.ID, Email: u.Email, Name: u.Name, Role: u.Role, CreatedAt: u.CreatedAt}
	}
	return out
}

// auditEntryView copies one audit entry for the console.
func auditEntryView(e *audit.AuditEntry) *views.AuditEntry {
	return &views.AuditEntry{ID: e.ID, ActorID: e.ActorID, ActorEmail: e.ActorEmail, Action: e.Action, Entity: e.Entity,
		EntityID: e.EntityID, Before: e.Before, After: e.After, CreatedAt: e.CreatedAt}
}

// auditEntriesView copies audit entries for the console.
func auditEntriesView(in []*audit.AuditEntry) []*views.AuditEntry {
	out := make([]*views.AuditEntry, len(in))
	for i, e := range in {
		out[i] = auditEntryView(e)
	}
	return out
}

// paymentView copies a payment for the pages (nil stays nil).
func paymentView(p *orders.Payment) *views.Payment {
	if p == nil {
		return nil
	}
	v := paymentValue(p)
	return &v
}

// paymentValue copies a payment's fields.
func paymentValue(p *orders.Payment) views.Payment {
	return views.Payment{ID: p.ID, PaymentID: p.PaymentID, OrderID: p.OrderID, Provider: p.Provider, AmountMinor: p.AmountMinor,
		Currency: p.Currency, Status: p.Status, CreatedAt: p.CreatedAt, OrderNo: p.OrderNo}
}

// staffOrderView copies an order found for staff (nil stays nil).
func staffOrderView(o *staff.StaffOrder) *views.StaffOrder {
	if o == nil {
		return nil
	}
	return &views.StaffOrder{Order: o.Order, UserEmail: o.UserEmail}
}

// orderDetailView copies one order's detail for the console's order page.
func orderDetailView(d *staff.OrderDetail) *views.OrderDetail {
	out := &views.OrderDetail{StaffOrder: staffOrderView(d.StaffOrder), Payments: make([]*views.OrderPayment, len(d.Payments)),
		History: auditEntriesView(d.History)}
	for i, p := range d.Payments {
		out.Payments[i] = &views.OrderPayment{Payment: paymentValue(&p.Payment), UpdatedAt: p.UpdatedAt}
	}
	return out
}
