package views

// VoucherPreviewURL is the booking form's voucher check of show id.
func VoucherPreviewURL(id int64) string { return "/shows/" + i64(id) + "/voucher" }
