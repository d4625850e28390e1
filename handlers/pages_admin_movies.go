package handlers

import "github.com/gofiber/fiber/v2"

// registerMoviePages registers movies under /admin/movies.
func (d *Deps) registerMoviePages(r fiber.Router) {}
