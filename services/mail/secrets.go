package mail

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// DataLinkSealed is the Data key of a password_reset e-mail's link, sealed by Secrets:
// the outbox never holds the link in clear (SECURITY.md). Only the e-mail as sent
// carries it; the development mailbox shows it redacted.
const DataLinkSealed = "link_sealed"

// sealedPrefix starts every sealed value: the format's version.
const sealedPrefix = "v1."

// secretsInfo separates the key Secrets derives from every other use of the secret.
const secretsInfo = "seatflow mail secrets v1"

// Secrets seals the secrets an e-mail carries (a reset link) for the outbox with
// AES-256-GCM, under a key derived by HKDF-SHA256 from the installation's secret
// (SEATFLOW_TICKET_SECRET), and opens them again at delivery. Every process that
// delivers e-mails must share the secret. Safe for concurrent use.
type Secrets struct{ aead cipher.AEAD }

// NewSecrets returns the sealer of secret. An empty secret is replaced by 32 random
// bytes of this process: what it seals then opens in this process only (as the ticket
// references of a process without SEATFLOW_TICKET_SECRET verify in it only).
func NewSecrets(secret []byte) (*Secrets, error) {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, err
		}
	}
	key, err := hkdf.Key(sha256.New, secret, nil, secretsInfo, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Secrets{aead: aead}, nil
}

// ErrNotSealed is Open's answer to a value that is not one Seal wrote under this key
// for this use (tampered, another installation's, or sealed for another row).
var ErrNotSealed = errors.New("the sealed value does not open under this installation's key")

// Seal encrypts plain for use (the additional data it is bound to, e.g.
// ResetLinkUse(user)) with a fresh random nonce: "v1." and base64url(nonce ‖
// ciphertext ‖ tag). Two seals of one value differ.
func (s *Secrets) Seal(plain, use string) (string, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := s.aead.Seal(nonce, nonce, []byte(plain), []byte(use))
	return sealedPrefix + base64.RawURLEncoding.EncodeToString(out), nil
}

// Open decrypts a value Seal wrote for use. Errors: ErrNotSealed.
func (s *Secrets) Open(sealed, use string) (string, error) {
	enc, ok := strings.CutPrefix(sealed, sealedPrefix)
	if !ok {
		return "", ErrNotSealed
	}
	b, err := base64.RawURLEncoding.DecodeString(enc)
	n := s.aead.NonceSize()
	if err != nil || len(b) < n+s.aead.Overhead() {
		return "", ErrNotSealed
	}
	plain, err := s.aead.Open(nil, b[:n], b[n:], []byte(use))
	if err != nil {
		return "", ErrNotSealed
	}
	return string(plain), nil
}

// ResetLinkUse is what a reset link sealed for user is bound to: a sealed link copied
// into another account's e-mail does not open.
func ResetLinkUse(user int64) string {
	return "password_reset:" + strconv.FormatInt(user, 10)
}
