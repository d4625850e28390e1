package waitingroom

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"hash"
	"strconv"
	"strings"
	"sync"
	"time"

	"seatflow/services"
)

// AdmittedFor is how long an admission token is valid (API.md: 10 minutes).
const AdmittedFor = 10 * time.Minute

// Tokens signs and checks admission tokens: "<show>.<user>.<room epoch>.<expiry unix
// s>.<HMAC>", HMAC-SHA256 under a secret every instance shares, bound to one user, one
// show and the epoch of its room (services.Show.RoomEpoch: turning the room on again
// ends every token signed before).
type Tokens struct {
	secret []byte
	refuse func(reason string) // counts refusals by reason; may be nil
	macs   sync.Pool           // HMAC-SHA256 states keyed with secret (hash.Hash), reset before use
}

// sum returns the HMAC-SHA256 under the secret of prefix then body, from a pooled
// keyed state (hmac.New keys a fresh one each time: most of a place read's hashing).
func (t *Tokens) sum(prefix, body string) []byte {
	m, _ := t.macs.Get().(hash.Hash)
	if m == nil {
		m = hmac.New(sha256.New, t.secret)
	}
	m.Reset()
	m.Write([]byte(prefix))
	m.Write([]byte(body))
	out := m.Sum(nil)
	t.macs.Put(m)
	return out
}

// NewTokens returns Tokens signing with secret; an empty secret is a random one of this
// process (tokens then work on this instance only: set SEATFLOW_ADMISSION_SECRET on
// every instance). refused, when not nil, is told the reason of each refusal: missing,
// invalid, expired, other (another user's or show's token) or epoch (signed before the
// room was last turned on).
func NewTokens(secret []byte, refused func(reason string)) *Tokens {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		_, _ = rand.Read(secret)
	}
	return &Tokens{secret: secret, refuse: refused}
}

func (t *Tokens) mac(body string) string {
	return base64.RawURLEncoding.EncodeToString(t.sum("admission|", body))
}

// Sign returns the token admitting userID to showID's order path and waiting list
// until exp (whole seconds, UTC), while the show's room is in epoch roomEpoch.
func (t *Tokens) Sign(userID, showID int64, roomEpoch int, exp time.Time) string {
	body := strconv.FormatInt(showID, 10) + "." + strconv.FormatInt(userID, 10) + "." +
		strconv.Itoa(roomEpoch) + "." + strconv.FormatInt(exp.Unix(), 10)
	return body + "." + t.mac(body)
}

// Check accepts token when it is this process's signature for userID and showID, of
// the room's epoch roomEpoch (or a later one: a show read from a cache a second old),
// and has not expired at now. Errors: NOT_ADMITTED, saying why (no token, a token that
// is not ours, expired, another user's or show's, of an earlier epoch of the room).
func (t *Tokens) Check(token string, userID, showID int64, roomEpoch int, now time.Time) error {
	reason, msg := t.check(token, userID, showID, roomEpoch, now)
	if reason == "" {
		return nil
	}
	if t.refuse != nil {
		t.refuse(reason)
	}
	return &services.Error{Code: services.CodeNotAdmitted, Message: msg}
}

// Valid reports whether token admits userID to showID in the room's epoch roomEpoch at
// now, counting no refusal (the seat map page asks before it sends a buyer to the
// waiting room).
func (t *Tokens) Valid(token string, userID, showID int64, roomEpoch int, now time.Time) bool {
	reason, _ := t.check(token, userID, showID, roomEpoch, now)
	return reason == ""
}

func (t *Tokens) check(token string, userID, showID int64, roomEpoch int, now time.Time) (reason, msg string) {
	if token == "" {
		return "missing", "this show's sale has a waiting room: join it (POST /api/v1/shows/" + strconv.FormatInt(showID, 10) + "/queue) and send the admission token you get in the Admission-Token header"
	}
	i := strings.LastIndexByte(token, '.')
	if i < 0 || !hmac.Equal([]byte(token[i+1:]), []byte(t.mac(token[:i]))) {
		return "invalid", "the admission token is not valid"
	}
	parts := strings.Split(token[:i], ".")
	if len(parts) != 4 {
		return "invalid", "the admission token is not valid"
	}
	show, err1 := strconv.ParseInt(parts[0], 10, 64)
	user, err2 := strconv.ParseInt(parts[1], 10, 64)
	epoch, err3 := strconv.Atoi(parts[2])
	exp, err4 := strconv.ParseInt(parts[3], 10, 64)
	switch {
	case err1 != nil || err2 != nil || err3 != nil || err4 != nil:
		return "invalid", "the admission token is not valid"
	case show != showID || user != userID:
		return "other", "the admission token is for another show or another buyer"
	case epoch < roomEpoch:
		return "epoch", "the waiting room was turned on again after this admission: join the waiting room again"
	case !now.Before(time.Unix(exp, 0)):
		return "expired", "your admission has expired: join the waiting room again"
	}
	return "", ""
}

// Place is a waiting buyer's place as they carry it (SignPlace): their queue number
// (0 until the opening's draw numbers it), queue id, first position and, for a buyer
// who joined before the opening, their draw (which orders them at the opening), and
// when (Unix ms, the app's clock) their heartbeat was last written to Redis (0: not
// known), so an instance writes it again only every BeatEvery.
type Place struct {
	Seq     int64
	QueueID string
	First   int
	Draw    int64 // read from a token only while Seq is 0 (before the place is numbered)
	BeatAt  int64

	sealed    uint64 // the token's sealed draw, signed again as it was
	hasSealed bool
}

// SignPlace returns the place token of userID's place p in showID's room:
// "<show>.<user>.<seq>.<queue id>.<first>.<sealed draw>.<beat at>.<HMAC>" under the admission
// secret. The draw is sealed (XOR a pad only the secret gives), so nobody learns before
// the opening where it will put them. It admits nothing; it lets an instance answer the
// buyer's read without asking Redis.
func (t *Tokens) SignPlace(userID, showID int64, p Place) string {
	sealed := p.sealed
	if !p.hasSealed {
		sealed = uint64(p.Draw) ^ t.drawPad(userID, showID)
	}
	body := strconv.FormatInt(showID, 10) + "." + strconv.FormatInt(userID, 10) + "." +
		strconv.FormatInt(p.Seq, 10) + "." + p.QueueID + "." + strconv.Itoa(p.First) + "." +
		strconv.FormatUint(sealed, 36) + "." + strconv.FormatInt(p.BeatAt, 36)
	return body + "." + t.placeMAC(body)
}

// drawPad is the pad that seals userID's draw in showID's room.
func (t *Tokens) drawPad(userID, showID int64) uint64 {
	return binary.BigEndian.Uint64(t.sum("draw|", strconv.FormatInt(showID, 10)+"|"+strconv.FormatInt(userID, 10)))
}

// CheckPlace returns the place token carries when it is this secret's signature for
// userID and showID; false otherwise. A token signed before it carried the heartbeat's
// time (six parts) reads as BeatAt 0. Draw is unsealed only while Seq is 0.
func (t *Tokens) CheckPlace(token string, userID, showID int64) (Place, bool) {
	i := strings.LastIndexByte(token, '.')
	if i < 0 || !hmac.Equal([]byte(token[i+1:]), []byte(t.placeMAC(token[:i]))) {
		return Place{}, false
	}
	parts := strings.Split(token[:i], ".")
	if len(parts) != 6 && len(parts) != 7 {
		return Place{}, false
	}
	var beatAt int64
	if len(parts) == 7 {
		b, err := strconv.ParseInt(parts[6], 36, 64)
		if err != nil || b < 0 {
			return Place{}, false
		}
		beatAt = b
	}
	show, err1 := strconv.ParseInt(parts[0], 10, 64)
	user, err2 := strconv.ParseInt(parts[1], 10, 64)
	seq, err3 := strconv.ParseInt(parts[2], 10, 64)
	first, err4 := strconv.Atoi(parts[4])
	sealed, err5 := strconv.ParseUint(parts[5], 36, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || show != showID || user != userID || seq < 0 {
		return Place{}, false
	}
	p := Place{Seq: seq, QueueID: parts[3], First: first, BeatAt: beatAt, sealed: sealed, hasSealed: true}
	if seq == 0 { // the draw places a place not yet numbered; unsealing costs an HMAC
		p.Draw = int64(sealed ^ t.drawPad(userID, showID))
	}
	return p, true
}

func (t *Tokens) placeMAC(body string) string {
	return base64.RawURLEncoding.EncodeToString(t.sum("place|", body))
}
