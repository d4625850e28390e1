package views

import (
	"context"
	"embed"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// Lang is a language the moviegoer pages are served in: En or ZhHans. Its methods
// translate messages and format dates and money for it. The zero value reads as En.
type Lang string

// The languages of the moviegoer pages. The staff console is English only.
const (
	En     Lang = "en"
	ZhHans Lang = "zh-Hans"
)

// Langs are the supported languages, English first (the fallback).
var Langs = []Lang{En, ZhHans}

// LangCookie is the cookie that keeps a visitor's language choice (set by ?lang=).
const LangCookie = "sf_lang"

// LangParam is the query parameter of the language switcher's links.
const LangParam = "lang"

// ParseLang accepts exactly a supported language code ("en", "zh-Hans", case
// insensitive); anything else is false.
func ParseLang(s string) (Lang, bool) {
	for _, l := range Langs {
		if strings.EqualFold(s, string(l)) {
			return l, true
		}
	}
	return En, false
}

var matcher = language.NewMatcher([]language.Tag{language.English, language.SimplifiedChinese})

// NegotiateLang picks the language of a page, first match wins: the ?lang= query value,
// the sf_lang cookie, then the Accept-Language header through the language matcher
// (zh, zh-CN, zh-SG, zh-Hans and the other Chinese tags the matcher relates to
// zh-Hans give ZhHans; anything else En). Unknown or malformed values are ignored.
// fromQuery reports that the query chose (the switcher was used).
func NegotiateLang(query, cookie, acceptLanguage string) (lang Lang, fromQuery bool) {
	if l, ok := ParseLang(query); ok {
		return l, true
	}
	if l, ok := ParseLang(cookie); ok {
		return l, false
	}
	if acceptLanguage == "" || len(acceptLanguage) > 512 {
		return En, false
	}
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(tags) == 0 {
		return En, false
	}
	_, i, conf := matcher.Match(tags...)
	if conf == language.No || i < 0 || i >= len(Langs) {
		return En, false
	}
	return Langs[i], false
}

type langKey struct{}

// WithLang returns ctx carrying the page language l; components read it with LangOf.
func WithLang(ctx context.Context, l Lang) context.Context {
	return context.WithValue(ctx, langKey{}, l)
}

// LangOf is the page language carried by ctx, En when none.
func LangOf(ctx context.Context) Lang {
	if l, ok := ctx.Value(langKey{}).(Lang); ok && l != "" {
		return l
	}
	return En
}

// Tag is the BCP 47 tag of l for <html lang>.
func (l Lang) Tag() string {
	if l == "" {
		return string(En)
	}
	return string(l)
}

// IsZh reports whether l is Simplified Chinese.
func (l Lang) IsZh() bool { return l == ZhHans }

//go:embed i18n/active.*.toml
var catalogFiles embed.FS

// CatalogFiles are the embedded message catalogs, one per language
// ("i18n/active.en.toml", "i18n/active.zh-Hans.toml").
func CatalogFiles() embed.FS { return catalogFiles }

var (
	bundle     *i18n.Bundle
	localizers map[Lang]*i18n.Localizer
	missedOnce sync.Map
)

func init() {
	bundle = i18n.NewBundle(language.English)
	bundle.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	localizers = map[Lang]*i18n.Localizer{}
	for _, l := range Langs {
		if _, err := bundle.LoadMessageFileFS(catalogFiles, "i18n/active."+string(l)+".toml"); err != nil {
			panic(fmt.Sprintf("message catalog %s: %v", l, err))
		}
		localizers[l] = i18n.NewLocalizer(bundle, string(l))
	}
}

// D is the data of a message's {{.Name}} fields.
type D = map[string]any

// T is the message id in l, with data filling its {{.Name}} fields (nil for none).
// A message missing from l's catalog falls back to English; an id in no catalog panics
// in tests and is logged (once) and shown as the id in production.
func (l Lang) T(id string, data map[string]any) string {
	return l.localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data})
}

// N is the plural message id for count in l ("1 seat" / "2 seats"; Chinese has one
// form), with {{.Count}} set to count and data filling the other fields.
func (l Lang) N(id string, count int, data map[string]any) string {
	d := map[string]any{"Count": count}
	for k, v := range data {
		d[k] = v
	}
	return l.localize(&i18n.LocalizeConfig{MessageID: id, PluralCount: count, TemplateData: d})
}

func (l Lang) localize(cfg *i18n.LocalizeConfig) string {
	loc, ok := localizers[l]
	if !ok {
		loc = localizers[En]
	}
	s, err := loc.Localize(cfg)
	if err == nil {
		return s
	}
	if s != "" { // found in the fallback language
		return s
	}
	if testing.Testing() {
		panic(fmt.Sprintf("message %q: %v", cfg.MessageID, err))
	}
	if _, seen := missedOnce.LoadOrStore(cfg.MessageID, true); !seen {
		slog.Error("missing message", "id", cfg.MessageID, "lang", string(l), "err", err)
	}
	return cfg.MessageID
}

// T is the message id in ctx's language (see Lang.T).
func T(ctx context.Context, id string) string { return LangOf(ctx).T(id, nil) }

// Tf is the message id in ctx's language with its fields filled from data.
func Tf(ctx context.Context, id string, data map[string]any) string {
	return LangOf(ctx).T(id, data)
}
