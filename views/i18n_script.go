package views

import (
	"encoding/json"

	"seatflow/services"
)

// ScriptTextJSON is ScriptText(l) as JSON, for the layout's data-sf-text attribute on
// <body>: the scripts read their sentences there, so no inline script is needed (the
// content security policy allows none).
func ScriptTextJSON(l Lang) string {
	b, err := json.Marshal(ScriptText(l))
	if err != nil {
		return "{}"
	}
	return string(b)
}

// ScriptText are the sentences static/js writes, in l, keyed by name. Placeholders in
// braces ({n}, {label}, {limit}, ...) are filled by the scripts; a key ending in _one
// is the form for a count of 1, _other for any other count (Chinese has one form, so
// both are the same).
func ScriptText(l Lang) map[string]string {
	m := map[string]string{}
	plural := func(key, id string, data D) {
		d := D{"Count": "{n}"}
		for k, v := range data {
			d[k] = v
		}
		m[key+"_one"] = l.N(id, 1, d)
		m[key+"_other"] = l.N(id, 2, d)
	}
	plural("seats", "seats", nil)
	plural("seats_left", "seats_left", nil)
	plural("minutes_left", "js.minutes_left", nil)
	for key, id := range map[string]string{
		"limit":            "js.limit",
		"exchange_left":    "js.exchange_left",
		"exchange_reached": "js.exchange_reached",
		"limit_owned":      "js.limit_owned",
		"reached":          "js.reached",
		"reached_owned":    "js.reached_owned",
		"cannot":           "js.cannot",
		"picked":           "js.picked",
		"unpicked":         "js.unpicked",
		"wheelchair":       "js.wheelchair",
		"total":            "js.total",
		"left":             "js.left",
		"taken_one":        "js.taken_one",
		"taken_other":      "js.taken_other",
		// the visible notice (the sentences above are for the live region)
		"taken_notice_one":   "js.taken_notice_one",
		"taken_notice_other": "js.taken_notice_other",
		"bar_none":           "map.bar_none",
		"strand_one":         "js.strand_one",
		"strand_other":       "js.strand_other",
		// under enforce, when the row offers as many seats that strand none
		"strand_refused_one":   "js.strand_refused_one",
		"strand_refused_other": "js.strand_refused_other",
		"expired":              "order.status.expired",
		// the phone's bottom bar, beside the Book button
		"strand_bar":         "js.strand_bar",
		"strand_bar_refused": "js.strand_bar_refused",
		// a tapped seat that cannot be picked, and Book with none picked after it
		"unavailable":      "js.unavailable",
		"unavailable_book": "js.unavailable_book",
		"sr_available":     "seat.available",
		"sr_selected":      "seat.selected",
		"state_sold":       "seat.sold",
		"state_held":       "seat.held",
		"state_yours":      "js.state_yours",
		"state_blocked":    "seat.not_for_sale",
	} {
		m[key] = l.T(id, jsPlaceholders)
	}
	m["kind_wheelchair"] = l.KindSuffix(services.KindWheelchair)
	m["kind_companion"] = l.KindSuffix(services.KindCompanion)
	m["list_sep"] = l.T("js.list_sep", nil)
	return m
}

// jsPlaceholders fill a script sentence's fields with the scripts' own placeholders.
var jsPlaceholders = D{
	"Label": "{label}", "Limit": "{limit}", "Left": "{left}", "Owned": "{owned}",
	"Selected": "{selected}", "Seats": "{seats}", "Total": "{total}", "Reached": "{reached}",
	"State": "{state}", "Reason": "{reason}",
}
