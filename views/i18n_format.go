package views

import (
	"strconv"
	"strings"
	"time"

	"github.com/goodsign/monday"
)

// zhDayTime is the Chinese layout of DayTime: "11月30日 周一 19:30".
const zhDayTime = "1月2日 周Mon 15:04"

// DayTime formats an instant in the cinema's zone for l: English "Mon 30 Nov, 19:30"
// (exactly DayTime), Chinese "11月30日 周一 19:30".
func (l Lang) DayTime(t time.Time, loc *time.Location) string {
	if !l.IsZh() {
		return DayTime(t, loc)
	}
	return monday.Format(inZone(t, loc), zhDayTime, monday.LocaleZhCN)
}

// DayHeading names a local day relative to today for l: English as DayHeading,
// Chinese "今天 · 11月30日 周一", "明天 · 12月1日 周二", "星期三 · 12月2日".
func (l Lang) DayHeading(day, today time.Time) string {
	if !l.IsZh() {
		return DayHeading(day, today)
	}
	switch daysBetween(today, day) {
	case 0:
		return "今天 · " + monday.Format(day, "1月2日 周Mon", monday.LocaleZhCN)
	case 1:
		return "明天 · " + monday.Format(day, "1月2日 周Mon", monday.LocaleZhCN)
	}
	return monday.Format(day, "Monday · 1月2日", monday.LocaleZhCN)
}

// daysBetween counts calendar days from a to b (their own dates, zones ignored).
func daysBetween(a, b time.Time) int {
	y0, m0, d0 := a.Date()
	y1, m1, d1 := b.Date()
	t0 := time.Date(y0, m0, d0, 0, 0, 0, 0, time.UTC)
	t1 := time.Date(y1, m1, d1, 0, 0, 0, 0, time.UTC)
	return int(t1.Sub(t0).Hours() / 24)
}

// StripLabel is a day's short name in the date strip for l: English as StripLabel,
// Chinese "今天", "明天", "周三".
func (l Lang) StripLabel(d ShowDay, i int) string {
	if !l.IsZh() {
		return StripLabel(d, i)
	}
	switch i {
	case 0:
		return "今天"
	case 1:
		return "明天"
	}
	if t, err := time.Parse(time.DateOnly, d.Date); err == nil {
		return monday.Format(t, "周Mon", monday.LocaleZhCN)
	}
	return d.Date
}

// StripDate is a day's date for the strip in l: "1 Dec", Chinese "12月1日".
func (l Lang) StripDate(d ShowDay) string {
	if !l.IsZh() {
		return StripDate(d)
	}
	if t, err := time.Parse(time.DateOnly, d.Date); err == nil {
		return monday.Format(t, "1月2日", monday.LocaleZhCN)
	}
	return ""
}

// Runtime formats a film's length in l: English as Runtime, Chinese "52分钟",
// "1小时37分钟".
func (l Lang) Runtime(min int) string {
	if !l.IsZh() {
		return Runtime(min)
	}
	switch {
	case min <= 0:
		return ""
	case min < 60:
		return strconv.Itoa(min) + "分钟"
	}
	return strconv.Itoa(min/60) + "小时" + pad2(uint64(min%60)) + "分钟"
}

// Until says how long until a deadline in l: English as Until, Chinese "14分钟后",
// "不到1分钟后", "2小时5分钟后", "现在".
func (l Lang) Until(d time.Duration) string {
	if !l.IsZh() {
		return Until(d)
	}
	switch {
	case d <= 0:
		return l.T("time.now", nil)
	case d < time.Minute:
		return l.T("time.in_under_minute", nil)
	case d < time.Hour:
		return l.N("time.in_minutes", int(d/time.Minute), nil)
	}
	m := int(d / time.Minute)
	return l.T("time.in_hours", D{"Hours": m / 60, "Minutes": m % 60})
}

// Minutes formats a duration as whole minutes (rounded up) for sentences in l:
// "15 minutes", "1 minute", Chinese "15分钟".
func (l Lang) Minutes(d time.Duration) string {
	return l.N("time.minutes", int((d+time.Minute-1)/time.Minute), nil)
}

// JoinLabels lists seat labels in a sentence in l: "F7, F8 and F9", Chinese
// "F7、F8和F9".
func (l Lang) JoinLabels(labels []string) string {
	if !l.IsZh() {
		return JoinLabels(labels)
	}
	switch len(labels) {
	case 0:
		return ""
	case 1:
		return labels[0]
	}
	return strings.Join(labels[:len(labels)-1], "、") + "和" + labels[len(labels)-1]
}

// Sentences joins sentences for l: English puts a space between them, Chinese
// none (its full stops carry the break). Empty parts are left out.
func (l Lang) Sentences(parts ...string) string {
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, l.SentenceSep())
}

// SentenceSep is what goes between two sentences in l: " ", Chinese "".
func (l Lang) SentenceSep() string {
	if l.IsZh() {
		return ""
	}
	return " "
}

// Money formats an amount in minor units for l. Both languages write a currency the
// same way today ("¥45.00"), so this is Money; the method keeps the call sites ready
// for a per-language form.
func (l Lang) Money(minor int64, currency string) string { return Money(minor, currency) }

// SeatTakenMessage is the lost-seats sentence in l (see SeatTakenMessage).
func (l Lang) SeatTakenMessage(labels []string) string {
	if !l.IsZh() {
		return SeatTakenMessage(labels)
	}
	if len(labels) == 0 {
		return l.T("seat.taken_some", nil)
	}
	return l.T("seat.taken", D{"Seats": l.JoinLabels(labels)})
}

// RetryText is the rate limit's sentence in l.
func (l Lang) RetryText(seconds int) string {
	return l.T("error.retry", D{"Seconds": max(seconds, 1)})
}

// StatusTitle is the heading of an error page in l (see StatusTitle).
func (l Lang) StatusTitle(status int) string {
	if !l.IsZh() {
		return StatusTitle(status)
	}
	switch status {
	case 400, 401, 403, 404, 409, 413, 422, 429, 503:
		return l.T("status."+strconv.Itoa(status), nil)
	}
	if status >= 500 {
		return l.T("status.500", nil)
	}
	return l.T("status.generic", nil)
}
