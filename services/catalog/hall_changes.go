package catalog

import (
	"context"
	"log/slog"
	"strconv"

	"github.com/redis/go-redis/v9"

	"seatflow/services/store"
)

// HallChanges tells every process that staff changed a hall's layout, so that each
// drops its cached copy at once rather than when the copy's minute runs out. It is one
// plain pub/sub channel, "<prefix>:halls:changed", whose messages are hall ids: a
// cluster sends a PUBLISH to every node, and hall edits are rare (DESIGN.md section 13).
type HallChanges struct {
	rdb     redis.UniversalClient
	channel string
	catalog *Catalog
	log     *slog.Logger
}

// NewHallChanges returns the channel of hall changes under prefix for catalog, and
// makes catalog announce its own hall changes on it (Catalog.HallChanged).
func NewHallChanges(rdb redis.UniversalClient, prefix string, catalog *Catalog, log *slog.Logger) *HallChanges {
	h := &HallChanges{rdb: rdb, channel: prefix + ":halls:changed", catalog: catalog, log: log}
	catalog.announce = h.announce
	return h
}

// announce publishes that hall id changed. A failed publish is logged: the other
// processes' copies then last until their minute runs out, and a hold that finds a
// seat gone reads the hall again (invariant 12).
func (h *HallChanges) announce(ctx context.Context, id int64) {
	if err := h.rdb.Publish(context.WithoutCancel(ctx), h.channel, strconv.FormatInt(id, 10)).Err(); err != nil {
		h.log.Warn("hall change not announced to the other processes; their copies expire within a minute", "hall_id", id, "err", err)
	}
}

// Run listens to the channel until ctx ends, dropping each announced hall from the
// catalog; it subscribes again a second after a failure, and then drops every cached
// hall (a change may have been missed meanwhile).
func (h *HallChanges) Run(ctx context.Context) {
	store.KeepSubscribed(ctx, h.log, "hall changes", func(ctx context.Context, again bool) error {
		return store.SubscribeOnce(ctx, h.rdb.Subscribe(ctx, h.channel), func() {
			if again {
				h.catalog.halls.ForgetAll()
			}
		}, func(m *redis.Message) {
			if id, err := strconv.ParseInt(m.Payload, 10, 64); err == nil {
				h.catalog.ForgetHall(id)
			}
		})
	})
}
