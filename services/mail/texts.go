package mail

import (
	"strings"
)

// The e-mails' words in each language. Each kind has a subject and an opening
// paragraph; {no}, {movie}, {hall}, {time}, {deadline} and {total} are replaced by the
// order's and show's values. Console text is English only, but e-mails go to
// moviegoers, so they are written in the reader's language (users.lang).
type words struct {
	subject, intro map[Kind]string
	// the button (action) under the opening paragraph, per kind; "" for none
	action map[Kind]string
	labels map[string]string // detail rows and other fixed words
	status map[string]string // order statuses
	reason map[string]string // reason codes (reasons.go) and show-cancel outcomes
}

var english = words{
	subject: map[Kind]string{
		OrderCreated:      "Your seats for {movie} are held: pay by {deadline}",
		OrderPaid:         "Your tickets for {movie}",
		OrderCancelled:    "Order {no} was cancelled",
		OrderExpired:      "Order {no} expired",
		OrderRefunded:     "Order {no} was refunded",
		OrderPartRefunded: "Seats of order {no} were refunded",
		ShowCancelled:     "{movie} on {time} is cancelled",
		WaitlistOffer:     "Seats for {movie} are waiting for you",
		OrderExchanged:    "Your new seats for {movie}",
		PasswordReset:     "Reset your seatflow password",
	},
	intro: map[Kind]string{
		OrderCreated:      "Your order {no} for {movie} is waiting for payment. We hold the seats for you until {deadline}; after that they go back on sale.",
		OrderPaid:         "Thank you: order {no} is paid. Show the QR code below at the entrance.",
		OrderCancelled:    "Your order {no} for {movie} was cancelled and its seats were released.",
		OrderExpired:      "Order {no} for {movie} was not paid by {deadline}, so its seats were released. You can book again while seats are free.",
		OrderRefunded:     "Your order {no} for {movie} was refunded: {refunded} goes back the way you paid.",
		OrderPartRefunded: "Seats {refunded_seats} of your order {no} for {movie} were refunded: {refunded} goes back the way you paid. Your other seats stay booked; the ticket is valid for them.",
		ShowCancelled:     "We are sorry: the show of {movie} on {time} in {hall} was cancelled. Your order {no} ended with it; a paid order is refunded in full.",
		WaitlistOffer:     "Good news: seats came free for {movie} and we hold them for you as order {no}. Pay by {deadline} to keep them.",
		OrderExchanged:    "Your order {no} for {movie} is now on the seats below; the seats it had before are released. Tickets of the old seats are no longer valid.",
		PasswordReset:     "Someone, hopefully you, asked to reset the password of this seatflow account. Use the link below to choose a new one. If it was not you, ignore this e-mail: your password stays as it is.",
	},
	action: map[Kind]string{
		OrderCreated:   "Pay now",
		OrderPaid:      "View your order",
		WaitlistOffer:  "Pay now",
		PasswordReset:  "Choose a new password",
		OrderExchanged: "View your order",
	},
	labels: map[string]string{
		"old_seats": "Previous seats",
		"order":     "Order", "movie": "Movie", "cinema": "Cinema", "hall": "Hall", "starts": "Starts", "seats": "Seats",
		"total": "Total", "voucher": "Voucher", "status": "Status", "pay_by": "Pay by", "reason": "Reason", "note": "Note",
		"ticket": "Ticket reference", "qr": "Ticket QR code", "hello": "Hello,",
		"refunded": "Refunded", "refunded_seats": "Seats refunded", "cancel_until": "Cancel and refund until",
		"code": "Code for the door", "code_hint": "If the QR code cannot be scanned, the staff at the door can type this code.",
		"footer":         "This e-mail was sent by seatflow because of your account's activity.",
		"footer_counter": "This e-mail was sent by seatflow because this address was given at the cinema's box office.",
		"link":           "Link:", "sep": ": ",
		"redacted": "[link redacted: seatflow keeps it only encrypted, and its token only as a SHA-256; " +
			"it appears in clear only in the e-mail as sent]",
	},
	status: map[string]string{"pending": "waiting for payment", "paid": "paid", "cancelled": "cancelled",
		"expired": "expired", "refunded": "refunded"},
	reason: map[string]string{
		ReasonBuyer:                   "you cancelled the order",
		ReasonStaff:                   "cinema staff ended the order",
		ReasonDeadline:                "the payment deadline passed",
		ReasonLatePayment:             "your payment arrived after the order had ended; it was refunded in full",
		ReasonAlreadyPaid:             "the order was already paid by another payment; this one was refunded in full",
		"outcome_" + OutcomeCancelled: "the order was cancelled; nothing was charged",
		"outcome_" + OutcomeRefunded:  "your payment is refunded in full",
	},
}

var chinese = words{
	subject: map[Kind]string{
		OrderCreated:      "《{movie}》座位已为您保留，请在 {deadline} 前付款",
		OrderPaid:         "您的《{movie}》电影票",
		OrderCancelled:    "订单 {no} 已取消",
		OrderExpired:      "订单 {no} 已过期",
		OrderRefunded:     "订单 {no} 已退款",
		OrderPartRefunded: "订单 {no} 的部分座位已退款",
		ShowCancelled:     "《{movie}》{time} 场次已取消",
		WaitlistOffer:     "《{movie}》候补座位已为您保留",
		OrderExchanged:    "您的《{movie}》新座位",
		PasswordReset:     "重置您的 seatflow 密码",
	},
	intro: map[Kind]string{
		OrderCreated:      "您的订单 {no}（《{movie}》）待付款。座位为您保留至 {deadline}，逾期未付款，座位将重新开放出售。",
		OrderPaid:         "感谢您的购买！订单 {no} 已付款。入场时请出示下方二维码。",
		OrderCancelled:    "您的订单 {no}（《{movie}》）已取消，座位已释放。",
		OrderExpired:      "订单 {no}（《{movie}》）未在 {deadline} 前付款，座位已释放。如仍有空位，您可以重新预订。",
		OrderRefunded:     "您的订单 {no}（《{movie}》）已退款，{refunded} 将原路退回。",
		OrderPartRefunded: "您的订单 {no}（《{movie}》）中的座位 {refunded_seats} 已退款，{refunded} 将原路退回。其余座位保持不变，电影票对其仍然有效。",
		ShowCancelled:     "非常抱歉，《{movie}》{time} 在{hall}的场次已取消，您的订单 {no} 随之结束；已付款的订单将全额退款。",
		WaitlistOffer:     "好消息！《{movie}》有座位空出，我们已为您保留为订单 {no}。请在 {deadline} 前付款，以免座位被释放。",
		OrderExchanged:    "您的订单 {no}（《{movie}》）已换到下列座位，原座位已释放。原座位的电影票不再有效。",
		PasswordReset:     "有人（希望是您本人）申请重置此 seatflow 账户的密码。请点击下方链接设置新密码。如非本人操作，请忽略此邮件，您的密码不会改变。",
	},
	action: map[Kind]string{
		OrderCreated:   "立即付款",
		OrderPaid:      "查看订单",
		WaitlistOffer:  "立即付款",
		PasswordReset:  "设置新密码",
		OrderExchanged: "查看订单",
	},
	labels: map[string]string{
		"old_seats": "原座位",
		"order":     "订单号", "movie": "影片", "cinema": "影院", "hall": "影厅", "starts": "开场时间", "seats": "座位",
		"total": "总价", "voucher": "优惠码", "status": "状态", "pay_by": "付款截止", "reason": "原因", "note": "影院说明",
		"ticket": "票券编号", "qr": "电影票二维码", "hello": "您好！",
		"refunded": "退款金额", "refunded_seats": "已退座位", "cancel_until": "可自助取消并退款至",
		"code": "入场码", "code_hint": "二维码无法扫描时，检票员可输入此入场码。",
		"footer":         "此邮件由 seatflow 根据您账户的操作自动发送。",
		"footer_counter": "此邮件由 seatflow 发送，因为您在影院售票处留下了此邮箱地址。",
		"link":           "链接：", "sep": "：",
		"redacted": "[链接已隐去：seatflow 只保存加密后的链接，令牌只保存其 SHA-256；只有实际发出的邮件中才有明文链接]",
	},
	status: map[string]string{"pending": "待付款", "paid": "已付款", "cancelled": "已取消",
		"expired": "已过期", "refunded": "已退款"},
	reason: map[string]string{
		ReasonBuyer:                   "您取消了订单",
		ReasonStaff:                   "影院工作人员结束了订单",
		ReasonDeadline:                "超过付款期限",
		ReasonLatePayment:             "您的付款在订单结束后才到账，已全额退款",
		ReasonAlreadyPaid:             "订单已由另一笔付款支付，本笔付款已全额退款",
		"outcome_" + OutcomeCancelled: "订单已取消，未扣款",
		"outcome_" + OutcomeRefunded:  "您的付款将全额退款",
	},
}

// wordsFor returns the words of lang: Chinese for "zh-Hans" (or any "zh…"), else
// English.
func wordsFor(lang string) *words {
	if isChinese(lang) {
		return &chinese
	}
	return &english
}

func isChinese(lang string) bool { return strings.HasPrefix(strings.ToLower(lang), "zh") }

// fill replaces the {name} placeholders of s with vars.
func fill(s string, vars map[string]string) string {
	pairs := make([]string, 0, 2*len(vars))
	for k, v := range vars {
		pairs = append(pairs, "{"+k+"}", v)
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// reasonText is a reason code of reasons.go (or "outcome_" and a show cancel's outcome)
// in the reader's language; "" for an unknown or missing code, so nothing untranslated
// reaches a reader.
func (w *words) reasonText(r string) string { return w.reason[r] }
