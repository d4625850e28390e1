package accounts

import (
	"context"

	"seatflow/services"
	"seatflow/services/store"
)

// The languages a user reads (users.lang): the moviegoer pages' languages (views.Lang),
// in which their e-mails are written. LangEn is the column's default.
const (
	LangEn     = "en"
	LangZhHans = "zh-Hans"
)

// CheckLang refuses a language that is not LangEn or LangZhHans (INVALID_REQUEST).
func CheckLang(lang string) error {
	if lang != LangEn && lang != LangZhHans {
		return services.Errorf(services.CodeInvalidRequest, "lang must be %q or %q", LangEn, LangZhHans)
	}
	return nil
}

// SetLang records the language userID reads (the page's language at registration, the
// language switcher's choice): one UPDATE, which writes only when the language changed.
// A change drops the user's cached sessions in every process (SessionCache.ForgetUser),
// since a session carries the language its orders' e-mails are queued in
// (services.User.Lang). An unknown user changes nothing. Errors: INVALID_REQUEST
// (CheckLang), UNAVAILABLE.
func (u *Users) SetLang(ctx context.Context, userID int64, lang string) error {
	if err := CheckLang(lang); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	changed, err := store.SetUserLang(ctx, u.db, userID, lang)
	if err != nil {
		return store.Unavailable("the database", err)
	}
	if changed {
		u.cache.ForgetUser(ctx, userID)
	}
	return nil
}
