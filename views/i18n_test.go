package views

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"seatflow/services"
)

func TestNegotiateLang(t *testing.T) {
	for _, tc := range []struct {
		name, query, cookie, accept string
		want                        Lang
		fromQuery                   bool
	}{
		{"nothing", "", "", "", En, false},
		{"english header", "", "", "en-US,en;q=0.9", En, false},
		{"zh", "", "", "zh", ZhHans, false},
		{"zh-CN", "", "", "zh-CN,zh;q=0.9,en;q=0.8", ZhHans, false},
		{"zh-SG", "", "", "zh-SG", ZhHans, false},
		{"zh-Hans", "", "", "zh-Hans", ZhHans, false},
		{"zh-TW goes to the matcher's zh-Hans", "", "", "zh-TW", ZhHans, false},
		{"zh second after an unknown", "", "", "fr-FR, zh;q=0.5", ZhHans, false},
		{"english preferred over zh", "", "", "en;q=0.9, zh;q=0.5", En, false},
		{"unsupported", "", "", "fr-FR,de;q=0.8", En, false},
		{"malformed header", "", "", "@@;;q=x", En, false},
		{"cookie beats header", "", "zh-Hans", "en-GB", ZhHans, false},
		{"english cookie beats zh header", "", "en", "zh-CN", En, false},
		{"junk cookie falls to header", "", "klingon", "zh-CN", ZhHans, false},
		{"query beats cookie and header", "zh-Hans", "en", "en", ZhHans, true},
		{"query en", "en", "zh-Hans", "zh-CN", En, true},
		{"query is case insensitive", "ZH-hans", "", "", ZhHans, true},
		{"junk query ignored", "xx", "", "zh-CN", ZhHans, false},
		{"junk query, cookie kept", "zh-TW", "en", "zh-CN", En, false},
		{"empty query", "", "zh-Hans", "", ZhHans, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, fromQuery := NegotiateLang(tc.query, tc.cookie, tc.accept)
			if got != tc.want || fromQuery != tc.fromQuery {
				t.Errorf("NegotiateLang(%q, %q, %q) = %q, %v; want %q, %v", tc.query, tc.cookie, tc.accept, got, fromQuery, tc.want, tc.fromQuery)
			}
		})
	}
}

func TestLangOf(t *testing.T) {
	if l := LangOf(context.Background()); l != En {
		t.Errorf("no language in ctx: %q, want en", l)
	}
	if l := LangOf(WithLang(context.Background(), ZhHans)); l != ZhHans {
		t.Errorf("WithLang(zh-Hans): %q", l)
	}
}

func TestLangFormats(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 11, 30, 0, 0, time.UTC) // 19:30 in Shanghai, a Monday
	today := time.Date(2026, 11, 30, 0, 0, 0, 0, shanghai)
	for _, tc := range []struct{ name, got, want string }{
		{"zh day time", ZhHans.DayTime(at, shanghai), "11月30日 周一 19:30"},
		{"zh day time in UTC", ZhHans.DayTime(at, nil), "11月30日 周一 11:30"},
		{"zh day time, Sunday", ZhHans.DayTime(time.Date(2026, 12, 6, 12, 5, 0, 0, shanghai), shanghai), "12月6日 周日 12:05"},
		{"en day time unchanged", En.DayTime(at, shanghai), "Mon 30 Nov, 19:30"},
		{"zero lang is english", Lang("").DayTime(at, shanghai), DayTime(at, shanghai)},
		{"zh today", ZhHans.DayHeading(today, today), "今天 · 11月30日 周一"},
		{"zh tomorrow", ZhHans.DayHeading(today.AddDate(0, 0, 1), today), "明天 · 12月1日 周二"},
		{"zh later", ZhHans.DayHeading(today.AddDate(0, 0, 2), today), "星期三 · 12月2日"},
		{"en later unchanged", En.DayHeading(today.AddDate(0, 0, 2), today), "Wednesday · 2 Dec"},
		{"zh strip today", ZhHans.StripLabel(ShowDay{Date: "2026-11-30"}, 0), "今天"},
		{"zh strip weekday", ZhHans.StripLabel(ShowDay{Date: "2026-12-02"}, 2), "周三"},
		{"zh strip date", ZhHans.StripDate(ShowDay{Date: "2026-12-02"}), "12月2日"},
		{"en strip date", En.StripDate(ShowDay{Date: "2026-12-02"}), "2 Dec"},
		{"zh runtime", ZhHans.Runtime(97), "1小时37分钟"},
		{"zh runtime short", ZhHans.Runtime(52), "52分钟"},
		{"en runtime", En.Runtime(97), "1 h 37 min"},
		{"zh until", ZhHans.Until(14 * time.Minute), "14分钟后"},
		{"zh until hours", ZhHans.Until(125 * time.Minute), "2小时5分钟后"},
		{"zh until now", ZhHans.Until(0), "现在"},
		{"en until", En.Until(time.Minute), "in 1 minute"},
		{"zh minutes", ZhHans.Minutes(15 * time.Minute), "15分钟"},
		{"en minutes", En.Minutes(15 * time.Minute), "15 minutes"},
		{"en minute", En.Minutes(time.Minute), "1 minute"},
		{"zh join", ZhHans.JoinLabels([]string{"F7", "F8", "F9"}), "F7、F8和F9"},
		{"en join", En.JoinLabels([]string{"F7", "F8", "F9"}), "F7, F8 and F9"},
		{"zh money", ZhHans.Money(4500, "CNY"), "¥45.00"},
		{"en money", En.Money(4500, "CNY"), "¥45.00"},
		{"zh seat", ZhHans.SeatName("F7"), "F排7座"},
		{"en seat", En.SeatName("F7"), "Row F, seat 7"},
		{"zh taken", ZhHans.SeatTakenMessage([]string{"F7", "F8"}), "抱歉，F7和F8刚刚被他人选走。"},
		{"en taken", En.SeatTakenMessage([]string{"F7", "F8"}), "Sorry, F7 and F8 were just taken by someone else."},
		{"en retry", En.RetryText(12), "Too many attempts — retry in 12 s."},
		{"zh status", ZhHans.StatusTitle(404), "页面不存在"},
		{"en status", En.StatusTitle(404), "Not found"},
		{"zh kind", ZhHans.KindSuffix(services.KindWheelchair), "（轮椅位）"},
		{"en kind", En.KindSuffix(services.KindCompanion), " (companion seat)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestLangPlurals(t *testing.T) {
	for _, tc := range []struct {
		l    Lang
		n    int
		want string
	}{
		{En, 0, "0 seats"}, {En, 1, "1 seat"}, {En, 2, "2 seats"},
		{ZhHans, 1, "1个座位"}, {ZhHans, 2, "2个座位"},
	} {
		t.Run(string(tc.l)+"/"+itoa(tc.n), func(t *testing.T) {
			if got := tc.l.N("seats", tc.n, nil); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLangURL(t *testing.T) {
	for _, tc := range []struct{ uri, want string }{
		{"/", "/?lang=zh-Hans"},
		{"", "/?lang=zh-Hans"},
		{"/shows/4", "/shows/4?lang=zh-Hans"},
		{"/?date=2026-12-01&movie=3", "/?lang=zh-Hans&date=2026-12-01&movie=3"},
		{"/?lang=en&movie=3", "/?lang=zh-Hans&movie=3"},
	} {
		t.Run(tc.uri, func(t *testing.T) {
			if got := LangURL(tc.uri, ZhHans); got != tc.want {
				t.Errorf("LangURL(%q) = %q, want %q", tc.uri, got, tc.want)
			}
		})
	}
}

// messageCatalog reads one embedded catalog: message id -> plural forms present ("" for a
// plain message).
func messageCatalog(t *testing.T, l Lang) map[string][]string {
	t.Helper()
	b, err := fs.ReadFile(CatalogFiles(), "i18n/active."+string(l)+".toml")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := toml.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for id, v := range raw {
		switch m := v.(type) {
		case string:
			out[id] = []string{""}
		case map[string]any:
			for form := range m {
				out[id] = append(out[id], form)
			}
			sort.Strings(out[id])
		default:
			t.Errorf("%s: %s is a %T", l, id, v)
		}
	}
	return out
}

// TestCatalogs_SameIDs: both catalogs hold exactly the same message ids, plural where
// the other is plural (English one+other, Chinese other).
func TestCatalogs_SameIDs(t *testing.T) {
	en, zh := messageCatalog(t, En), messageCatalog(t, ZhHans)
	for id, forms := range en {
		zf, ok := zh[id]
		switch {
		case !ok:
			t.Errorf("%s: in active.en.toml, missing from active.zh-Hans.toml", id)
		case forms[0] == "" && zf[0] != "":
			t.Errorf("%s: plain in English, plural in Chinese", id)
		case forms[0] != "" && (strings.Join(forms, ",") != "one,other" || strings.Join(zf, ",") != "other"):
			t.Errorf("%s: plural forms en %v, zh %v; want [one other] and [other]", id, forms, zf)
		}
	}
	for id := range zh {
		if _, ok := en[id]; !ok {
			t.Errorf("%s: in active.zh-Hans.toml, missing from active.en.toml", id)
		}
	}
	if len(en) < 100 {
		t.Errorf("only %d messages read: the catalog did not parse as expected", len(en))
	}
}

// usedID finds the message ids the code names literally: T(ctx, "id"), Tf(ctx, "id",
// ...), Tn(ctx, "id", ...), l.T("id", ...), l.N("id", ...) and ScriptText's table.
var usedID = regexp.MustCompile(`(?:\bT|\bTf|\bTn|\.T|\.N)\(\s*(?:ctx,\s*)?"([a-z0-9_.]*[a-z0-9_])"|^\s*"[a-z_]+":\s*"([a-z0-9_]+\.[a-z0-9_.]+)",`)

// TestCatalogs_EveryUsedIDExists scans the views and handlers for message ids and
// checks each is in both catalogs; the ids built at run time are exercised by
// rendering them (a missing id panics in tests).
func TestCatalogs_EveryUsedIDExists(t *testing.T) {
	en, zh := messageCatalog(t, En), messageCatalog(t, ZhHans)
	var files []string
	for _, pattern := range []string{"*.templ", "*.go", "../handlers/*.go"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_templ.go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			for _, m := range usedID.FindAllStringSubmatch(line, -1) {
				id := m[1] + m[2]
				seen++
				if _, ok := en[id]; !ok {
					t.Errorf("%s: %q is not in active.en.toml", f, id)
				}
				if _, ok := zh[id]; !ok {
					t.Errorf("%s: %q is not in active.zh-Hans.toml", f, id)
				}
			}
		}
	}
	if seen < 100 {
		t.Errorf("only %d message uses found: the scan no longer matches the code", seen)
	}
	for _, l := range Langs { // the ids built at run time
		for _, st := range []int{400, 401, 403, 404, 409, 413, 422, 429, 500, 502, 503, 418} {
			if l.StatusTitle(st) == "" {
				t.Errorf("%s: no title for %d", l, st)
			}
		}
		for k, v := range ScriptText(l) {
			if v == "" {
				t.Errorf("%s: script text %s is empty", l, k)
			}
		}
	}
}

func TestLang_MissingMessagePanicsInTests(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("an unknown message id did not panic")
		}
	}()
	ZhHans.T("no.such.message", nil)
}

func TestLangOrderAndShowTexts(t *testing.T) {
	shanghai, _ := time.LoadLocation("Asia/Shanghai")
	now := time.Date(2026, 11, 30, 11, 30, 0, 0, time.UTC) // Mon 19:30 in Shanghai
	reason, staff := "cancelled by the buyer", "projector broke"
	later := now.Add(10 * time.Minute)
	pending := &services.Order{Status: services.OrderPending, ExpiresAt: now.Add(14 * time.Minute)}
	cancelled := &services.Order{Status: services.OrderCancelled, CancelledAt: &later, CancelReason: &reason}
	byStaff := &services.Order{Status: services.OrderCancelled, CancelledAt: &later, CancelReason: &staff}
	expired := &services.Order{Status: services.OrderExpired}
	upcoming := &services.Show{Status: services.ShowScheduled, StartsAt: now.Add(48 * time.Hour),
		SaleOpensAt: now.Add(24 * time.Hour), SaleClosesAt: now.Add(47 * time.Hour)}
	for _, tc := range []struct{ name, got, want string }{
		{"zh deadline", ZhHans.Deadline(pending, now, shanghai), "请在19:44前付款（14分钟后）"},
		{"en deadline", En.Deadline(pending, now, shanghai), "Pay by 19:44 (in 14 minutes)"},
		{"zh status", ZhHans.OrderStatus(pending, now).Label, "待付款"},
		{"zh status past deadline", ZhHans.OrderStatus(pending, now.Add(time.Hour)).Label, "已过期"},
		{"zh ended by the buyer", ZhHans.EndedText(cancelled, shanghai), "已于11月30日 周一 19:40取消（由您本人取消）。座位已释放。"},
		{"en ended by the buyer", En.EndedText(cancelled, shanghai), "Cancelled at Mon 30 Nov, 19:40 (cancelled by the buyer). The seats were released."},
		{"zh staff reason as written", ZhHans.EndedText(byStaff, shanghai), "已于11月30日 周一 19:40取消（projector broke）。座位已释放。"},
		{"zh expired", ZhHans.EndedText(expired, shanghai), "已过期：付款期限已过。座位已释放。"},
		{"zh sale opens", ZhHans.StateOf(upcoming, now, shanghai).Label, "12月1日 周二 19:30开售"},
		{"en sale opens", En.StateOf(upcoming, now, shanghai).Reason, "Sale opens Tue 1 Dec, 19:30."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}
