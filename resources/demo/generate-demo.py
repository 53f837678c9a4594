#!/usr/bin/env python3
"""Generate Verity's demo data set: "the March incident".

Writes the demo transcripts in Verity's native JSONL format (see
resources/formats/native-jsonl.md) to stdout. resources/demo/march-incident.jsonl
is the committed output of this script; regenerate it with

    python3 resources/demo/generate-demo.py > resources/demo/march-incident.jsonl

The output is deterministic (standard library only, no randomness, ids derived
from hashes). A short summary goes to stderr.

What is in it (46 tickets, 17 March - 5 April 2026, times in UTC):

* T-20260317-0412, order SU-88421 (4-shelf oak shelving unit, $118.00, Ashcombe
  Furniture, balance $189.00 at 08:00Z). The old issue_refund timed out at
  14:32:12 after the provider had accepted the refund, the model called it again,
  and the second refund succeeded: two refunds, one described. Ashcombe ends the
  ticket at -$47.00 (18900 - 2 x 11800 cents).
* Four more tickets of the same shape with the old tool, 19-28 March, four other
  sellers. Duplicate payouts (refunds performed beyond the one intended):
      T-20260319-0187  Brightwater Lighting      1 x 14500 = 14500
      T-20260323-0096  Fenwick & Rowe Garden    1 x 13200 = 13200
      T-20260325-0141  Linden Home Textiles     2 x  9650 = 19300  (two timeouts, then success)
      T-20260328-0433  Harrow & Finch Interiors 1 x 14000 = 14000
                                                  total     61000 cents ($610.00)
  With SU-88421 (11800) that is 72800 cents of duplicate payouts in the file.
* 41 ordinary tickets. Until 28 March they use the old tools (unstructured results,
  classified by the registry's outcome rules: a 400 from schedule_pickup, a
  validation error string from issue_refund, a 503 from message_seller). From
  29 March the fixed tools answer with an "outcome" field: performed,
  already_performed (4 tickets), not_performed (2 refunds over the $150 ceiling
  followed by escalate_to_human, 2 pickups with no courier slots) and unknown
  (7 tickets: 5 refunds, 1 pickup, 1 seller message; the model does not retry).
  Also: read-only tickets, get_order failures that the model retries, and one
  call to a tool the registry does not know (apply_store_credit, T-20260330-0218).
* The five incident tickets also carry what the layers under each refund logged
  (`http` and `provider` lines): the old tool's fresh key per attempt, the client's
  timeout, and the provider's record of every refund it accepted, so a trainer can
  replay them layer by layer.
* Exactly one write has no tool_result at all: schedule_pickup call c3 in
  T-20260402-0502, the agent run crashed after sending it.

Seller balances: each ticket gives the seller's balance at 08:00Z on the day it
opened. In this file balances move only by refunds the payment provider performed
(old-tool calls that timed out count; fixed-tool "unknown" refunds do not), so
balances reconcile across tickets.
"""

import datetime as dt
import hashlib
import json
import re
import sys
from collections import Counter

# --------------------------------------------------------------------------
# Helpers

ALPHABET = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def ident(prefix, *parts, length=14):
    """A stable id such as re_4fQx...: derived from its context, never random."""
    n = int.from_bytes(hashlib.sha256("|".join(parts).encode()).digest(), "big")
    out = []
    for _ in range(length):
        n, r = divmod(n, len(ALPHABET))
        out.append(ALPHABET[r])
    return prefix + "".join(out)


SANDBOX_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def sandbox_id(prefix, seed):
    """The id the sandbox seed gives a refund the transcript names none for
    (derivedSandboxId in models/sandbox), so a replay and a lookup agree.
    tests/data/sandbox-ids.json holds ids both must derive (tst_sandboxids)."""
    digest = hashlib.sha256(seed.encode()).digest()
    return prefix + "".join(SANDBOX_ALPHABET[b % len(SANDBOX_ALPHABET)] for b in digest[:24])


def uuid_key(*parts):
    """The old tool's uuid4() per attempt, stood in for by a hash so the file
    stays deterministic: a different key on every attempt, as shipped."""
    h = hashlib.sha256("|".join(("attempt-key",) + parts).encode()).hexdigest()
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], "89ab"[int(h[16], 16) % 4],
                                 h[17:20], h[20:32])


def parse(s):
    return dt.datetime.fromisoformat(s.replace("Z", "+00:00"))


def fmt(t):
    t = t.astimezone(dt.timezone.utc)
    if t.microsecond:
        return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def usd(cents):
    return "$%d.%02d" % (cents // 100, cents % 100) if cents >= 0 else "-" + usd(-cents)


def window(day, start, end):
    """Courier window text, e.g. 'Thu 2 Apr, 08:00-12:00'."""
    d = dt.date.fromisoformat(day)
    return "%s %d %s, %s-%s" % (d.strftime("%a"), d.day, d.strftime("%b"), start, end)


NO_RESULT = object()  # a call whose result never arrived (crashed run)

# --------------------------------------------------------------------------
# Sellers: balance at 2026-03-17T08:00:00Z

SELLERS = {
    "ashcombe-furniture": ("Ashcombe Furniture", 18900),
    "brightwater-lighting": ("Brightwater Lighting", 212400),
    "fenwick-rowe-garden": ("Fenwick & Rowe Garden", 87650),
    "linden-home-textiles": ("Linden Home Textiles", 41300),
    "harrow-finch-interiors": ("Harrow & Finch Interiors", 153000),
    "saltmarsh-ceramics": ("Saltmarsh Ceramics", 46220),
    "greywell-outdoor": ("Greywell Outdoor", 128475),
    "pennant-rugs": ("Pennant Rug Company", 72900),
    "thistle-pine-homeware": ("Thistle & Pine Homeware", 35610),
    "marlow-lamp-co": ("Marlow Lamp Co.", 96300),
    "orchard-lane-planters": ("Orchard Lane Planters", 22840),
    "kestrel-kitchen": ("Kestrel Kitchen Supply", 181150),
}

# --------------------------------------------------------------------------
# Procedures returned by search_procedures

PROCEDURES = {
    "damage": {
        "id": "PROC-114",
        "title": "Damaged in transit",
        "text": "Ask for a photo if none is attached. Offer a replacement first. If the "
                "buyer declines a replacement, refund the item price to the original "
                "payment method; no return is needed when the courier damaged the item. "
                "Refunds above $150.00 need a person: call escalate_to_human instead of "
                "issue_refund. Tell the seller what happened with message_seller.",
    },
    "return": {
        "id": "PROC-121",
        "title": "Change-of-mind returns",
        "text": "Buyers may return unused items within 30 days of delivery. Book a "
                "courier collection with schedule_pickup. The refund is issued once the "
                "seller confirms the item is back; do not refund before then.",
    },
    "faulty": {
        "id": "PROC-126",
        "title": "Faulty or unsafe items",
        "text": "Ask the buyer to stop using the item. Book a collection with "
                "schedule_pickup and refund the item price (up to $150.00). If the buyer "
                "reports an injury, fire, smoke or sparks, escalate_to_human as well.",
    },
    "parts": {
        "id": "PROC-130",
        "title": "Missing or wrong parts",
        "text": "Message the seller with the order id and the missing part; sellers "
                "should dispatch parts within 3 business days. Offer a partial refund "
                "only if the seller cannot supply the part.",
    },
    "wrong": {
        "id": "PROC-133",
        "title": "Wrong item or wrong variant delivered",
        "text": "Book a collection of the wrong item with schedule_pickup and ask the "
                "seller, with message_seller, to send the right one. If the right one is "
                "out of stock, refund the item price.",
    },
    "late": {
        "id": "PROC-117",
        "title": "Late or missing delivery",
        "text": "Give the buyer the latest tracking status from the order. If the carrier "
                "reports the parcel lost, or it is more than 10 business days late, refund "
                "the item price. Goodwill gestures for delays are up to the seller.",
    },
    "address": {
        "id": "PROC-104",
        "title": "Changing the delivery address",
        "text": "The address can be changed until the seller dispatches. After dispatch "
                "the buyer must contact the carrier with the tracking number; the "
                "marketplace cannot redirect a parcel.",
    },
    "safety": {
        "id": "PROC-140",
        "title": "Injury or safety report",
        "text": "If a buyer reports an injury or a safety hazard, do not offer a refund "
                "or compensation yourself. Call escalate_to_human with a summary; the "
                "trust and safety team replies within 4 business hours.",
    },
    "charges": {
        "id": "PROC-108",
        "title": "Payment questions",
        "text": "A card may show a temporary authorisation hold as well as the final "
                "charge; the hold drops off within 5 business days. Compare with the "
                "order total before raising anything.",
    },
}


def procedure(key):
    return {"results": [PROCEDURES[key]]}


# --------------------------------------------------------------------------
# Result payloads

def old_refund_ok(tk, cid, amount):
    return {"refund_id": ident("re_", tk.id, cid), "status": "queued", "amount_cents": amount}


def old_pickup_ok(tk, cid, day, start="08:00", end="12:00"):
    return {"pickup_id": ident("pk_", tk.id, cid), "window": window(day, start, end)}


def old_message_ok(tk, cid):
    return {"message_id": ident("msg_", tk.id, cid)}


def old_escalation_ok(tk, cid):
    return {"escalation_id": ident("esc_", tk.id, cid)}


def refund_performed(tk, cid, amount):
    return {"outcome": "performed", "refund_id": ident("re_", tk.id, cid), "amount_cents": amount}


def pickup_performed(tk, cid, day, start="08:00", end="12:00"):
    return {"outcome": "performed", "pickup_id": ident("pk_", tk.id, cid),
            "window": window(day, start, end)}


def message_performed(tk, cid):
    return {"outcome": "performed", "message_id": ident("msg_", tk.id, cid)}


def escalation_performed(tk, cid):
    return {"outcome": "performed", "escalation_id": ident("esc_", tk.id, cid)}


def unknown(what="provider"):
    return {"outcome": "unknown", "retry": "do_not_retry",
            "reason": "%s did not answer within 5 s; lookup could not confirm" % what,
            "escalation": "queued for a human"}


# --------------------------------------------------------------------------
# Ticket builder

class Ticket:
    def __init__(self, tid, opened, subject, customer, email, order_id, items,
                 seller_id, placed, delivered=None, tracking=None):
        self.id = tid
        self.opened = parse(opened)
        self.t = self.opened
        self.subject = subject
        self.customer = {"name": customer, "email": email}
        self.order_id = order_id
        self.items = [{"id": i, "title": title, "quantity": q, "amount_cents": c}
                      for (i, title, q, c) in items]
        self.seller_id = seller_id
        self.placed = placed
        self.delivered = delivered
        self.tracking = tracking
        self.events = []
        self.n = 0
        self.moved = []       # (time, cents, intent) refunds the provider performed
        self.refunded = 0     # what get_order reports as refunded_cents
        self.incident = False # incident tickets carry HTTP and provider lines

    # time ------------------------------------------------------------
    def _step(self, after):
        self.t = self.t + dt.timedelta(seconds=after)
        return self.t

    def at(self, hms):
        """Jump to an absolute time on the current day (must not go back)."""
        h, m, s = hms.split(":")
        sec = float(s)
        t = self.t.replace(hour=int(h), minute=int(m), second=int(sec),
                           microsecond=int(round((sec - int(sec)) * 1e6)))
        assert t >= self.t, (self.id, hms)
        self.t = t
        return self

    def day(self, iso):
        """Jump to another day/time (ISO string)."""
        t = parse(iso)
        assert t >= self.t, (self.id, iso)
        self.t = t
        return self

    # events ----------------------------------------------------------
    def _add(self, ev):
        self.events.append(ev)

    def _msg(self, who, text, after):
        self._step(after)
        self._add({"type": "message", "ticket": self.id, "at": fmt(self.t),
                   "from": who, "text": text})
        return self

    def cust(self, text, after=0):
        return self._msg("customer", text, after)

    def note(self, text, after=6):
        return self._msg("agent", text, after)

    def system(self, text, after=1):
        return self._msg("system", text, after)

    def reply(self, text, after=9):
        self._step(after)
        self._add({"type": "reply", "ticket": self.id, "at": fmt(self.t), "text": text})
        return self

    def call(self, tool, args, result, ms, after=3, moved=0):
        """tool_call, then (unless NO_RESULT) its tool_result ms later.

        result may be a function of the call id. moved: cents the payment
        provider actually refunded because of this call."""
        self.n += 1
        cid = "c%d" % self.n
        self._step(after)
        self._add({"type": "tool_call", "ticket": self.id, "at": fmt(self.t),
                   "call_id": cid, "tool": tool, "arguments": args})
        if moved:
            self.moved.append((self.t, moved, json.dumps(args, sort_keys=True)))
        if result is NO_RESULT:
            return cid
        if callable(result):
            result = result(cid)
        if self.incident and tool == "issue_refund":
            self._trace_refund(cid, result, ms, moved)
        self.t = self.t + dt.timedelta(milliseconds=ms)
        self._add({"type": "tool_result", "ticket": self.id, "at": fmt(self.t),
                   "call_id": cid, "result": result, "duration_ms": ms})
        return cid

    def _trace_refund(self, cid, result, ms, moved):
        """What the layers under an old-tool refund logged, for replays: the HTTP
        client's POST (a fresh key per attempt) and, when money moved, the
        provider's record about 0.4 s after the request."""
        key = uuid_key(self.id, cid)
        text = json.dumps(result).lower()
        gateway = re.search(r"\b(5\d\d)\b", text)
        http = {"type": "http", "ticket": self.id, "at": fmt(self.t), "call_id": cid,
                "method": "POST", "url": "/v1/refunds", "idempotency_key": key}
        if gateway:
            # A gateway in front of the provider answered for it: the client heard a 5xx.
            http.update({"status": int(gateway.group(1)), "duration_ms": ms - 30})
        elif "timeout" in text or "timed out" in text:
            http.update({"error": "timeout", "duration_ms": ms})
        else:
            http.update({"status": 200, "duration_ms": ms - 30})
        self._add(http)
        if moved:
            named = result.get("refund_id") if isinstance(result, dict) else None
            refund_id = named or sandbox_id("re_", "demo|%s/%s" % (self.id, cid))
            self._add({"type": "provider", "ticket": self.id,
                       "at": fmt(self.t + dt.timedelta(milliseconds=412)), "call_id": cid,
                       "event": "refund.created", "object_id": refund_id,
                       "idempotency_key": key, "amount_cents": moved})

    # common calls ------------------------------------------------------
    def order_obj(self, status="delivered", **extra):
        o = {"order_id": self.order_id, "status": status, "currency": "USD",
             "placed_at": self.placed, "buyer": self.customer["name"],
             "seller_id": self.seller_id,
             "items": self.items,
             "total_cents": sum(i["amount_cents"] * i["quantity"] for i in self.items),
             "refunded_cents": self.refunded}
        if self.delivered:
            o["delivered_at"] = self.delivered
        if self.tracking:
            o["tracking"] = self.tracking
        o.update(extra)
        return o

    def get_order(self, ms=410, after=3, fail=False, **extra):
        if fail:
            return self.call("get_order", {"order_id": self.order_id},
                             {"error": "order service unavailable"}, ms, after)
        return self.call("get_order", {"order_id": self.order_id},
                         self.order_obj(**extra), ms, after)

    def procedures(self, query, key, ms=620, after=4):
        return self.call("search_procedures", {"query": query}, procedure(key), ms, after)

    def refund_args(self, item=0, amount=None):
        it = self.items[item]
        return {"order_id": self.order_id, "item_id": it["id"],
                "amount_cents": it["amount_cents"] if amount is None else amount}

    def pickup_args(self, item=0):
        return {"order_id": self.order_id, "item_id": self.items[item]["id"]}

    # ticket_opened -----------------------------------------------------
    def opened_event(self, balance, as_of):
        name, _ = SELLERS[self.seller_id]
        return {"type": "ticket_opened", "ticket": self.id, "at": fmt(self.opened),
                "subject": self.subject, "customer": self.customer,
                # The payment at the provider is named, as a real order would name it: the
                # console looks refunds up under it and never makes one up.
                "order": {"id": self.order_id, "currency": "USD", "items": self.items,
                          "payment_intent": "pi_" + self.order_id},
                "seller": {"id": self.seller_id, "name": name, "balance_cents": balance,
                           "balance_as_of": fmt(as_of)}}


TICKETS = []


def ticket(*a, **kw):
    tk = Ticket(*a, **kw)
    TICKETS.append(tk)
    return tk


def email(name, domain="example.com"):
    return name.lower().replace("'", "").replace(" ", ".") + "@" + domain


def incident(tk):
    tk.incident = True
    return tk


# ==========================================================================
# The tickets, in the order they were opened
# ==========================================================================

# -- Tue 17 March ----------------------------------------------------------

t = ticket("T-20260317-0163", "2026-03-17T09:41:22Z", "When will my bookcase arrive?",
           "Priya Raman", email("Priya Raman"), "SU-88377",
           [("OAK-BC5", "Tall oak bookcase, 5 shelves", 1, 24900)],
           "ashcombe-furniture", "2026-03-12T19:03:40Z",
           tracking={"carrier": "Parcelway Freight", "status": "in_transit",
                     "estimated_delivery": "2026-03-19"})
t.cust("Hi, I ordered a bookcase last Thursday and the tracking hasn't changed since "
       "Saturday. Is it still coming?")
t.note("Delivery question. Reading the order for tracking.", after=34)
t.get_order()
t.reply("It's on its way. Parcelway Freight has it in transit and still expects to "
        "deliver on Thursday 19 March. Freight tracking often only updates at the depot "
        "and on the delivery day, so a few quiet days are normal. If it hasn't arrived "
        "by Friday, reply here and we'll chase it.", after=21)

t = ticket("T-20260317-0241", "2026-03-17T11:05:48Z", "Two mugs broken in the box",
           "Marcus Oyelaran", email("Marcus Oyelaran", "example.org"), "SU-88290",
           [("SPK-MUG4", "Set of 4 speckled stoneware mugs", 1, 4800)],
           "saltmarsh-ceramics", "2026-03-09T08:12:03Z", delivered="2026-03-16T15:40:00Z")
t.cust("The mugs came yesterday and two of the four were in pieces. The box had no "
       "padding at all. I don't want another set shipped the same way, just my money back.")
t.system("Attachment: IMG_2210.jpg (photo of broken mugs in the box)")
t.note("Damage on arrival, photo attached, buyer wants a refund and no replacement.", after=41)
t.get_order()
t.procedures("damaged in transit refund", "damage")
t.note("Declined replacement, so refund the set: $48.00, under the ceiling.", after=7)
t.call("issue_refund", t.refund_args(), lambda c: old_refund_ok(t, c, 4800), 1380, moved=4800)
t.refunded = 4800
t.call("message_seller", {"seller_id": "saltmarsh-ceramics",
                          "text": "Order SU-88290: 2 of 4 mugs arrived broken; the box had "
                                  "no padding. The buyer was refunded $48.00. Please pack "
                                  "mugs individually."},
       lambda c: old_message_ok(t, c), 740)
t.reply("Sorry about that, it's a sad way to open a parcel. I've refunded the full "
        "$48.00 to your original payment method; it should appear within 3 to 5 business "
        "days. There's no need to send anything back. I've also told the seller about the "
        "packing.", after=12)

# The wound.
t = incident(ticket("T-20260317-0412", "2026-03-17T14:28:51Z", "Shelving unit arrived cracked",
                    "Dana Whitfield", email("Dana Whitfield"), "SU-88421",
                    [("OAK-4S", "4-shelf oak shelving unit", 1, 11800)],
                    "ashcombe-furniture", "2026-03-10T20:17:09Z",
                    delivered="2026-03-16T12:05:00Z"))
t.cust("My shelving unit arrived yesterday and one of the side panels is cracked right "
       "through, the box was crushed at one corner. Can you sort this out?")
t.note("Damage in transit. Checking the order.", after=27)
t.get_order(ms=380)
t.reply("I'm sorry it arrived like that. I can send you a replacement unit, or refund the "
        "$118.00 if you'd rather not wait. Which would you prefer?", after=19)
t.cust("Refund please. I don't want to go through another delivery.", after=64)
t.at("14:31:41")
t.procedures("damaged in transit buyer declines replacement", "damage", ms=540, after=0)
t.note("Buyer declined a replacement: procedure says refund the item price. $118.00 is "
       "under the $150 ceiling.", after=9)
t.at("14:32:07")
t.call("issue_refund", t.refund_args(), {"error": "refund failed: upstream timeout"}, 5000,
       after=0, moved=11800)
t.note("The refund failed. Trying again.", after=1)
t.at("14:32:14.4")
t.call("issue_refund", t.refund_args(), lambda c: old_refund_ok(t, c, 11800), 4600,
       after=0, moved=11800)
t.reply("Done. I've refunded $118.00 to the card you paid with; it normally shows within "
        "3 to 5 business days. You don't need to return the damaged unit. Sorry again for "
        "the trouble.", after=5)

# -- Wed 18 March ----------------------------------------------------------

t = ticket("T-20260318-0152", "2026-03-18T10:12:30Z", "Return a parasol I don't need",
           "Elena Castillo", email("Elena Castillo"), "SU-88316",
           [("GW-PAR3", "3 m cantilever garden parasol, sand", 1, 13400)],
           "greywell-outdoor", "2026-03-07T11:45:12Z", delivered="2026-03-11T09:30:00Z")
t.cust("We ended up buying a gazebo so I'd like to send the parasol back. It's still in "
       "its box, never opened.")
t.note("Change-of-mind return, within 30 days. Checking order and procedure.", after=46)
t.get_order()
t.procedures("return unused item change of mind", "return")
t.note("Book a collection; refund after the seller confirms receipt.", after=6)
t.call("schedule_pickup", {"order_id": t.order_id},
       {"error": "400 Bad Request: item_id missing"}, 310)
t.note("Pickup refused: I left out the item id. Booking again with it.", after=3)
t.call("schedule_pickup", t.pickup_args(), lambda c: old_pickup_ok(t, c, "2026-03-20"), 1120)
t.reply("No problem. I've booked a courier to collect the parasol on Friday 20 March, "
        "between 8am and noon. Please have it ready in its box. Once Greywell Outdoor "
        "confirms it's back, we'll refund the $134.00.", after=11)

t = ticket("T-20260318-0377", "2026-03-18T16:50:03Z", "Rug is not what the listing says",
           "Tom Brennan", email("Tom Brennan", "example.org"), "SU-88354",
           [("PN-WL160", "Hand-knotted wool rug, 160 x 230 cm, rust", 1, 21900)],
           "pennant-rugs", "2026-03-11T13:22:51Z", delivered="2026-03-17T10:10:00Z")
t.cust('Your listing says <b>100% wool?</b> & "hand-knotted" but the label on the back '
       "says polypropylene and it looks machine-made. Which is it? I paid wool prices.")
t.note("Buyer disputes the material. Ask the seller to confirm before anything else.",
       after=52)
t.get_order()
t.call("message_seller", {"seller_id": "pennant-rugs",
                          "text": "Order SU-88354 (PN-WL160): the buyer says the label "
                                  "reads polypropylene, but the listing says 100% wool, "
                                  "hand-knotted. Please confirm the material within 2 "
                                  "business days."},
       lambda c: old_message_ok(t, c), 690)
t.reply("Thanks for flagging this. I've asked Pennant Rug Company to confirm what the rug "
        "is made of, and they have 2 business days to answer. If it isn't the wool rug "
        "you paid for, you'll be able to return it at no cost for a full refund.", after=14)

# -- Thu 19 March ----------------------------------------------------------

t = incident(ticket("T-20260319-0187", "2026-03-19T11:17:36Z", "Floor lamp stem bent",
                    "Aiko Tanaka", email("Aiko Tanaka"), "SU-88465",
                    [("BW-ARC-BR", "Brass arc floor lamp", 1, 14500)],
                    "brightwater-lighting", "2026-03-13T07:58:14Z",
                    delivered="2026-03-18T16:20:00Z"))
t.cust("The arc lamp arrived with the stem bent at the joint, it won't stand straight. "
       "The outer box has a big dent. I'd rather have a refund than wait for another one.")
t.system("Attachment: lamp_joint.jpg")
t.note("Damaged in transit, buyer prefers a refund.", after=38)
t.get_order()
t.procedures("damaged in transit refund", "damage")
t.note("Declined replacement; refund $145.00, under the ceiling.", after=8)
t.call("issue_refund", t.refund_args(), {"error": "refund failed: 504 Gateway Timeout"}, 5000,
       moved=14500)
t.note("Refund failed with a gateway error. Retrying.", after=2)
t.call("issue_refund", t.refund_args(), lambda c: old_refund_ok(t, c, 14500), 3870,
       moved=14500)
t.reply("I've refunded $145.00 to your original payment method, and it should arrive within "
        "3 to 5 business days. Please don't use the lamp with the bent stem; you don't need "
        "to send it back.", after=6)

t = ticket("T-20260319-0298", "2026-03-19T15:22:10Z", "Casserole dish came without its lid",
           "Samuel Okafor", email("Samuel Okafor"), "SU-88402",
           [("KK-CAS28", "Cast-iron casserole dish, 28 cm, teal", 1, 8900)],
           "kestrel-kitchen", "2026-03-12T17:40:00Z", delivered="2026-03-18T11:05:00Z")
t.cust("My casserole dish arrived but there is no lid in the box. Kind of important for a "
       "casserole!")
t.note("Missing part. Reading the order.", after=29)
t.get_order(fail=True, ms=1210)
t.note("Order service error; reads are safe to repeat.", after=2)
t.get_order(after=2)
t.procedures("missing part", "parts")
t.call("message_seller", {"seller_id": "kestrel-kitchen",
                          "text": "Order SU-88402 (KK-CAS28) was delivered without its lid. "
                                  "Please dispatch the lid to the buyer within 3 business "
                                  "days and reply with tracking."},
       lambda c: old_message_ok(t, c), 820)
t.reply("It certainly is! I've asked Kestrel Kitchen Supply to send the lid separately; "
        "they should dispatch it within 3 business days and we'll pass on the tracking. "
        "If they can't supply it, we'll sort out a partial refund.", after=10)

# -- Fri 20 March ----------------------------------------------------------

t = ticket("T-20260320-0114", "2026-03-20T09:30:44Z", "Lamp pair arrived with one shade",
           "Hannah Lindqvist", email("Hannah Lindqvist", "example.org"), "SU-88330",
           [("ML-TBL-PR", "Pair of ceramic table lamps with linen shades", 1, 8600)],
           "marlow-lamp-co", "2026-03-08T10:02:33Z", delivered="2026-03-13T14:00:00Z")
t.cust("Following up on last week: the seller told me they can't send the missing shade "
       "because it's discontinued. What now?")
t.system("Seller note on order SU-88330 (2026-03-18): replacement shade not available; "
         "seller agrees to a partial refund of $18.00.")
t.note("Seller can't supply the part; partial refund of $18.00 agreed.", after=40)
t.get_order()
t.procedures("missing part partial refund", "parts")
t.call("issue_refund", t.refund_args(amount=-1800),
       "Error: validation error: amount_cents must be positive", 260)
t.note("Sent the adjustment as a negative number. Refund amounts are positive: 1800.",
       after=3)
t.call("issue_refund", t.refund_args(amount=1800), lambda c: old_refund_ok(t, c, 1800), 1490,
       moved=1800)
t.refunded = 1800
t.reply("Sorry the shade couldn't be replaced. As agreed with Marlow Lamp Co., I've "
        "refunded $18.00 to your original payment method; you'll see it within 3 to 5 "
        "business days.", after=9)

t = ticket("T-20260320-0233", "2026-03-20T13:05:19Z", "Wrong size table runner",
           "Rafael Mendes", email("Rafael Mendes"), "SU-88411",
           [("TP-RUN180", "Linen table runner, 180 cm, olive", 1, 3200)],
           "thistle-pine-homeware", "2026-03-14T09:15:50Z", delivered="2026-03-19T12:30:00Z")
t.cust("I ordered the 180 cm runner and got a 120 cm one. Can the seller swap it?")
t.note("Wrong variant. Reading the order and the procedure.", after=35)
t.get_order()
t.procedures("wrong size delivered", "wrong")
t.call("message_seller", {"seller_id": "thistle-pine-homeware",
                          "text": "Order SU-88411: the buyer received the 120 cm runner "
                                  "instead of TP-RUN180 (180 cm). Can you send the right "
                                  "size? We'll arrange collection of the wrong one."},
       {"error": "503 Service Unavailable"}, 2030)
t.note("Seller message got a 503; it may or may not have gone out. Not sending it twice. "
       "Handing to a person.", after=4)
t.call("escalate_to_human", {"reason": "message_seller returned 503 for order SU-88411; "
                                       "check whether the seller received the swap request "
                                       "before sending again."},
       lambda c: old_escalation_ok(t, c), 560)
t.reply("I've asked Thistle & Pine Homeware to send the 180 cm runner, but their inbox "
        "didn't confirm the message, so a colleague will check it reached them and email "
        "you by Monday. You don't need to do anything in the meantime.", after=12)

# -- Sat 21 March ----------------------------------------------------------

t = ticket("T-20260321-0088", "2026-03-21T10:40:57Z", "Can I still return a planter?",
           "Grace Whitaker", email("Grace Whitaker"), "SU-88268",
           [("OL-TR45", "Terracotta planter, 45 cm", 2, 3900)],
           "orchard-lane-planters", "2026-03-06T16:31:27Z", delivered="2026-03-13T10:45:00Z")
t.cust("I bought two large terracotta planters and only need one. Is it too late to send "
       "one back?")
t.note("Return window question. No write needed yet.", after=42)
t.get_order()
t.procedures("return window change of mind", "return")
t.reply("Not too late: you have 30 days from delivery, so until 12 April. If you'd like to "
        "return one, keep it unused and reply here, and I'll book a courier collection. "
        "The $39.00 for that planter is refunded once the seller has it back.", after=15)

# -- Sun 22 March ----------------------------------------------------------

t = ticket("T-20260322-0061", "2026-03-22T12:15:08Z", "Solar lanterns stopped working",
           "Jamal Haddad", email("Jamal Haddad", "example.org"), "SU-88297",
           [("FR-SOL6", "Set of 6 solar garden lanterns", 1, 3400)],
           "fenwick-rowe-garden", "2026-03-09T14:04:47Z", delivered="2026-03-12T13:15:00Z")
t.cust("None of the six solar lanterns light up any more, even after a full sunny day. "
       "They worked for about a week.")
t.note("Faulty item. Procedure: collect and refund.", after=33)
t.get_order()
t.procedures("faulty item refund collection", "faulty")
t.call("schedule_pickup", t.pickup_args(), lambda c: old_pickup_ok(t, c, "2026-03-24"), 1340)
t.call("issue_refund", t.refund_args(), lambda c: old_refund_ok(t, c, 3400), 1610, moved=3400)
t.refunded = 3400
t.reply("Sorry they gave up so quickly. I've refunded the $34.00 to your original payment "
        "method (3 to 5 business days), and a courier will collect the lanterns on "
        "Tuesday 24 March between 8am and noon.", after=8)

# -- Mon 23 March ----------------------------------------------------------

t = incident(ticket("T-20260323-0096", "2026-03-23T10:02:15Z", "Garden bench split on arrival",
                    "Claire Beaumont", email("Claire Beaumont"), "SU-88519",
                    [("FR-BEN2", "Acacia garden bench, 2-seater", 1, 13200)],
                    "fenwick-rowe-garden", "2026-03-16T18:26:02Z",
                    delivered="2026-03-21T11:50:00Z"))
t.cust("The bench was delivered on Saturday and the seat slats are split along the grain "
       "in two places. It's not safe to sit on. I don't want a replacement, please "
       "refund me.")
t.system("Attachment: bench1.jpg, bench2.jpg")
t.note("Damaged in transit, replacement declined.", after=44)
t.get_order()
t.procedures("damaged in transit refund", "damage")
t.note("Refund $132.00, under the ceiling.", after=6)
t.call("issue_refund", t.refund_args(), "Error: request timed out after 5000 ms", 5000,
       moved=13200)
t.note("Timed out, so it didn't go through. Issuing it again.", after=2)
t.call("issue_refund", t.refund_args(), lambda c: old_refund_ok(t, c, 13200), 2940,
       moved=13200)
t.reply("I've refunded $132.00 to your original payment method; expect it within 3 to 5 "
        "business days. Please don't sit on the bench, and there's no need to return it.",
        after=7)

# -- Tue 24 March ----------------------------------------------------------

t = ticket("T-20260324-0355", "2026-03-24T14:40:31Z", "Wardrobe door hinges ripped out",
           "Oliver Kwan", email("Oliver Kwan"), "SU-88388",
           [("HF-WRD2", "Two-door oak veneer wardrobe", 1, 42000)],
           "harrow-finch-interiors", "2026-03-11T20:48:19Z", delivered="2026-03-20T09:00:00Z")
t.cust("The wardrobe's hinge plates were torn out of the panel when we unpacked it. I want "
       "a full refund and someone to take this thing away. If I don't hear back today I'm "
       "calling my bank.")
t.note("Damage, $420.00: far above the $150 ceiling. This needs a person.", after=39)
t.get_order()
t.procedures("damaged in transit large refund", "damage")
t.call("escalate_to_human", {"reason": "SU-88388 wardrobe damaged on delivery, buyer wants "
                                       "a $420.00 refund and collection; mentions a "
                                       "chargeback."},
       lambda c: old_escalation_ok(t, c), 480)
t.reply("I'm sorry, that's not what you should find in the box. A refund of this size is "
        "handled by a colleague, and I've passed your ticket on with the details; you'll "
        "hear from them today. They can arrange the collection too.", after=13)

# -- Wed 25 March ----------------------------------------------------------

t = incident(ticket("T-20260325-0141", "2026-03-25T09:18:02Z", "Rug arrived stained and torn",
                    "Nadia Petrova", email("Nadia Petrova", "example.org"), "SU-88556",
                    [("LH-JUTE16", "Hand-woven jute rug, 160 x 230 cm", 1, 9650)],
                    "linden-home-textiles", "2026-03-18T12:09:44Z",
                    delivered="2026-03-24T15:25:00Z"))
t.cust("The jute rug came with a tear along one edge and a large dark stain, the wrapping "
       "was soaked. I just want a refund.")
t.note("Damaged in transit, refund requested.", after=48)
t.get_order()
t.procedures("damaged in transit refund", "damage")
t.note("Refund $96.50.", after=5)
t.call("issue_refund", t.refund_args(), {"error": "refund failed: upstream timeout"}, 5000,
       moved=9650)
t.note("Refund failed. Trying once more.", after=2)
t.call("issue_refund", t.refund_args(), {"error": "refund failed: 504 Gateway Timeout"}, 5000,
       moved=9650)
t.note("Failed again. The provider seems slow; one more attempt.", after=3)
t.call("issue_refund", t.refund_args(), lambda c: old_refund_ok(t, c, 9650), 4120,
       moved=9650)
t.reply("Sorry for the wait. Your refund of $96.50 has gone through to your original "
        "payment method and should show within 3 to 5 business days. You can dispose of "
        "the damaged rug.", after=8)

# -- Thu 26 March ----------------------------------------------------------

t = ticket("T-20260326-0172", "2026-03-26T11:30:27Z", "Has my serving bowl shipped?",
           "Ben Adeyemi", email("Ben Adeyemi"), "SU-88601",
           [("SM-BWL32", "Large glazed serving bowl, 32 cm", 1, 5600)],
           "saltmarsh-ceramics", "2026-03-22T19:51:06Z",
           tracking={"carrier": "USPS", "status": "label_created",
                     "estimated_delivery": "2026-03-31"})
t.cust("I ordered a serving bowl on Sunday and haven't had a shipping email yet. It's a "
       "birthday present for the 2nd.")
t.note("Shipping status question.", after=31)
t.get_order(fail=True, ms=1530)
t.get_order(after=4)
t.reply("The seller has created the shipping label and USPS currently estimates delivery on "
        "Tuesday 31 March, so it should arrive before the 2nd. You'll get an email with "
        "tracking as soon as USPS scans it.", after=18)

# -- Fri 27 March ----------------------------------------------------------

t = ticket("T-20260327-0384", "2026-03-27T16:05:49Z", "Pendant light in the wrong finish",
           "Sofia Marino", email("Sofia Marino"), "SU-88577",
           [("BW-PND-MB", "Dome pendant light, matte black", 1, 7900)],
           "brightwater-lighting", "2026-03-20T08:33:12Z", delivered="2026-03-26T13:00:00Z")
t.cust("I ordered the matte black pendant and received a brushed brass one. Can you get me "
       "the black one? I don't need a refund.")
t.note("Wrong variant; buyer wants an exchange.", after=36)
t.get_order()
t.procedures("wrong variant delivered", "wrong")
t.call("message_seller", {"seller_id": "brightwater-lighting",
                          "text": "Order SU-88577: buyer received brushed brass instead of "
                                  "BW-PND-MB (matte black). Please send the matte black "
                                  "pendant and include a prepaid return label for the brass "
                                  "one."},
       lambda c: old_message_ok(t, c), 660)
t.reply("I've asked Brightwater Lighting to send the matte black pendant, with a prepaid "
        "label in the box to return the brass one. You'll get tracking by email once it "
        "ships.", after=11)

# -- Sat 28 March ----------------------------------------------------------

t = incident(ticket("T-20260328-0433", "2026-03-28T15:44:20Z", "Bedside table top gouged",
                    "Liam O'Connell", email("Liam O'Connell"), "SU-88590",
                    [("HF-BST-WN", "Walnut bedside table with drawer", 1, 14000)],
                    "harrow-finch-interiors", "2026-03-21T10:14:38Z",
                    delivered="2026-03-27T17:35:00Z"))
t.cust("The walnut bedside table has a deep gouge across the top and a split in the drawer "
       "front. Looks like it was dropped. Refund please, not a replacement.")
t.note("Damaged in transit, buyer declines replacement.", after=40)
t.get_order()
t.procedures("damaged in transit refund", "damage")
t.note("Refund $140.00, under the ceiling.", after=7)
t.call("issue_refund", t.refund_args(), {"error": "Error: request timed out after 5000 ms"},
       5000, moved=14000)
t.note("Refund didn't complete. Sending it again.", after=2)
t.call("issue_refund", t.refund_args(), lambda c: old_refund_ok(t, c, 14000), 2210,
       moved=14000)
t.reply("I've refunded $140.00 to your original payment method; it should show within 3 to "
        "5 business days. Sorry about the damage; you don't need to send the table back.",
        after=6)

# ==========================================================================
# From 29 March: the fixed tools answer with an "outcome"
# ==========================================================================

# -- Sun 29 March ----------------------------------------------------------

t = ticket("T-20260329-0121", "2026-03-29T10:20:14Z", "Lounge chair frame snapped",
           "Mei Chen", email("Mei Chen"), "SU-88634",
           [("GW-RAT-LC", "Rattan lounge chair with cushion", 1, 13900)],
           "greywell-outdoor", "2026-03-23T15:07:55Z", delivered="2026-03-28T10:40:00Z")
t.cust("One of the rattan chair's back legs is snapped clean off. Arrived like that "
       "yesterday. Refund please.")
t.system("Attachment: chair_leg.jpg")
t.note("Damaged in transit, refund requested, $139.00.", after=37)
t.get_order()
t.procedures("damaged in transit refund", "damage")
t.call("issue_refund", t.refund_args(), lambda c: refund_performed(t, c, 13900), 1720,
       moved=13900)
t.refunded = 13900
t.call("message_seller", {"seller_id": "greywell-outdoor",
                          "text": "Order SU-88634: the rattan lounge chair arrived with a "
                                  "snapped back leg. The buyer has been refunded $139.00; "
                                  "no return needed."},
       lambda c: message_performed(t, c), 590)
t.reply("I'm sorry about the chair. I've refunded $139.00 to your original payment method; "
        "allow 3 to 5 business days. You don't need to send it back.", after=8)

t = ticket("T-20260329-0264", "2026-03-29T14:05:37Z", "Runner rug soaked through",
           "Daniel Foster", email("Daniel Foster", "example.org"), "SU-88642",
           [("PN-RUN80", "Flatweave runner rug, 80 x 300 cm, indigo", 1, 8900)],
           "pennant-rugs", "2026-03-24T09:48:21Z", delivered="2026-03-28T14:20:00Z")
t.cust("The runner arrived wet through, it smells of mildew and the dye has run onto the "
       "fringe. I'd like a refund.")
t.note("Damaged in transit, refund $89.00.", after=43)
t.get_order()
t.procedures("damaged in transit refund", "damage")
t.call("issue_refund", t.refund_args(), unknown(), 5000)
t.note("Outcome unknown and marked do-not-retry; it's queued for a person. I won't call "
       "it again.", after=3)
t.reply("I've requested a refund of $89.00, but the payment system didn't confirm it in "
        "time, so I can't tell you yet whether it has gone through. Rather than risk "
        "refunding you twice, a colleague will check and confirm by email within one "
        "business day.", after=10)

t = ticket("T-20260329-0377", "2026-03-29T17:40:02Z", "Where is my stand mixer?",
           "Ruth Abernathy", email("Ruth Abernathy"), "SU-88613",
           [("KK-MIX5", "5-quart tilt-head stand mixer, cream", 1, 27900)],
           "kestrel-kitchen", "2026-03-21T12:30:45Z",
           tracking={"carrier": "UPS", "status": "delayed",
                     "estimated_delivery": "2026-03-31",
                     "last_scan": "2026-03-27 Memphis, TN hub"})
t.cust("My mixer was supposed to arrive on Friday. Tracking says delayed. Any idea when?")
t.note("Delivery delay question.", after=28)
t.get_order()
t.procedures("late delivery", "late")
t.reply("UPS flagged a delay at their Memphis hub on Friday and now expects to deliver on "
        "Tuesday 31 March. That's within the normal range, so no action is needed yet. If "
        "it hasn't arrived by 8 April, reply here and we'll treat it as lost and refund "
        "you.", after=16)

# -- Mon 30 March ----------------------------------------------------------

t = ticket("T-20260330-0107", "2026-03-30T09:12:26Z", "Dining chairs both cracked",
           "Kofi Mensah", email("Kofi Mensah"), "SU-88629",
           [("HF-DCH-PR", "Pair of oak dining chairs", 1, 18900)],
           "harrow-finch-interiors", "2026-03-22T21:04:13Z", delivered="2026-03-28T12:15:00Z")
t.cust("Both dining chairs have cracked back rails. The carton was torn open. I'd like my "
       "money back rather than another pair.")
t.note("Damage, replacement declined. $189.00 for the pair.", after=45)
t.get_order()
t.procedures("damaged in transit refund", "damage")
t.call("issue_refund", t.refund_args(),
       {"outcome": "not_performed", "reason": "amount 18900 exceeds the 15000 refund ceiling"},
       240)
t.note("Refused: over the $150 ceiling. Escalating as the procedure says.", after=2)
t.call("escalate_to_human", {"reason": "SU-88629: refund of $189.00 for two damaged dining "
                                       "chairs, above the refund ceiling; buyer declined a "
                                       "replacement."},
       lambda c: escalation_performed(t, c), 520)
t.reply("Sorry about the chairs. Refunds above $150 are approved by a colleague, so I've "
        "passed your request for $189.00 to the team with the photos and details. You "
        "should hear back within one business day.", after=11)

t = ticket("T-20260330-0218", "2026-03-30T11:48:55Z", "Lamp arrived a week late",
           "Isabel Navarro", email("Isabel Navarro", "example.org"), "SU-88548",
           [("ML-FLR-TR", "Tripod floor lamp, oak and linen", 1, 12400)],
           "marlow-lamp-co", "2026-03-17T10:27:30Z", delivered="2026-03-29T16:10:00Z")
t.cust("The lamp finally came yesterday, a full week after the date I was given. It's fine, "
       "but I'd arranged to be home twice for nothing. Is there anything you can do?")
t.note("Late but delivered and fine. Offering $20.00 store credit as a goodwill gesture.",
       after=39)
t.get_order()
t.call("apply_store_credit", {"order_id": t.order_id, "amount_cents": 2000,
                              "reason": "late delivery goodwill"},
       lambda c: {"credit_id": ident("sc_", t.id, c), "amount_cents": 2000,
                  "status": "applied", "expires": "2026-09-30"}, 870)
t.reply("I'm sorry you waited in twice. I've added $20.00 of store credit to your account "
        "as an apology; it's valid until 30 September and applies automatically at "
        "checkout.", after=9)

t = ticket("T-20260330-0305", "2026-03-30T15:30:41Z", "Collect a planter I'm returning",
           "Peter Lindgren", email("Peter Lindgren"), "SU-88503",
           [("OL-FC60", "Fibreclay cube planter, 60 cm, charcoal", 1, 11900)],
           "orchard-lane-planters", "2026-03-15T13:12:08Z", delivered="2026-03-20T11:00:00Z")
t.cust("I'd like to return the 60 cm cube planter, it's far too big for our balcony. "
       "It's unused. I'm at ZIP 05753.")
t.note("Change-of-mind return within 30 days. Booking a collection.", after=41)
t.get_order()
t.procedures("return change of mind", "return")
t.call("schedule_pickup", t.pickup_args(),
       {"outcome": "not_performed", "reason": "no courier slots for postcode 05753"}, 1460)
t.note("No slots for that ZIP; nothing was booked.", after=3)
t.reply("You can return it, but our courier has no collection slots for 05753 at the "
        "moment, so nothing is booked yet. Reply here later in the week and I'll try "
        "again, or a colleague can arrange a freight pickup if you'd rather not wait.",
        after=12)

t = ticket("T-20260330-0362", "2026-03-30T16:55:18Z", "Cushion covers faded after one wash",
           "Chloe Dubois", email("Chloe Dubois"), "SU-88585",
           [("TP-CUS4", "Set of 4 linen cushion covers, terracotta", 1, 5200)],
           "thistle-pine-homeware", "2026-03-20T18:40:07Z", delivered="2026-03-25T10:30:00Z")
t.cust("Washed the cushion covers once at 30 degrees as the label says and they've faded "
       "badly and patchily. Can you ask the seller what's going on?")
t.note("Quality complaint; the buyer asks us to contact the seller.", after=33)
t.get_order()
t.call("message_seller", {"seller_id": "thistle-pine-homeware",
                          "text": "Order SU-88585 (TP-CUS4): the buyer washed the covers "
                                  "once at 30 C as labelled and they faded unevenly. Is this "
                                  "a known issue with this batch? Please reply on the "
                                  "ticket."},
       unknown("messaging service"), 5000)
t.note("Unknown whether the message was sent; do-not-retry, queued for a person.", after=3)
t.reply("I've written to Thistle & Pine Homeware, but their messaging system didn't confirm "
        "delivery. So they don't get the same message twice, a colleague will check "
        "whether it arrived and follow up with you by tomorrow.", after=10)

# -- Tue 31 March ----------------------------------------------------------

t = ticket("T-20260331-0093", "2026-03-31T09:05:33Z", "Terracotta pot cracked",
           "Arjun Mehta", email("Arjun Mehta"), "SU-88655",
           [("FR-POT40", "Frost-proof terracotta pot, 40 cm", 1, 4200)],
           "fenwick-rowe-garden", "2026-03-26T08:22:19Z", delivered="2026-03-30T13:45:00Z")
t.cust("The pot has a crack from the rim almost to the base. Please refund it.")
t.note("Damage in transit, refund $42.00.", after=36)
t.get_order()
t.procedures("damaged in transit refund", "damage")
c = t.call("issue_refund", t.refund_args(), lambda c: refund_performed(t, c, 4200), 1310,
           moved=4200)
first_refund = ident("re_", t.id, c)
t.refunded = 4200
t.reply("Sorry it arrived cracked. I've refunded $42.00 to your original payment method; "
        "allow 3 to 5 business days.", after=7)
t.cust("I checked my card and there's nothing there. Can you do it again?", after=2460)
t.note("Buyer can't see the refund yet. Issuing it again.", after=30)
t.call("issue_refund", t.refund_args(),
       {"outcome": "already_performed", "refund_id": first_refund,
        "note": "this refund was made earlier on this ticket"}, 290)
t.note("Already made at 09:07; nothing new was sent.", after=2)
t.reply("The refund of $42.00 was made this morning and is on its way; card refunds take 3 "
        "to 5 business days to appear, so it won't show yet. I haven't sent a second one, "
        "as you'd then be refunded twice. If it isn't there by 7 April, reply here.",
        after=10)

t = ticket("T-20260331-0158", "2026-03-31T10:30:12Z", "Ceiling light glass shattered",
           "Fiona MacLeod", email("Fiona MacLeod", "example.org"), "SU-88648",
           [("BW-CL-OPL", "Opal glass flush ceiling light", 1, 7450)],
           "brightwater-lighting", "2026-03-25T11:36:50Z", delivered="2026-03-30T15:05:00Z")
t.cust("The glass diffuser of the ceiling light was in pieces when I opened the box. I'd "
       "prefer a refund.")
t.note("Damaged in transit, refund $74.50.", after=40)
t.get_order()
t.procedures("damaged in transit refund", "damage")
t.call("issue_refund", t.refund_args(), unknown(), 5000)
t.note("Unknown outcome. Reading the order to see whether the money moved.", after=3)
t.get_order(after=2)
t.note("refunded_cents still 0, which doesn't settle it. Not retrying; a person will "
       "confirm.", after=4)
t.reply("I've asked for a refund of $74.50, but the payment system didn't confirm whether "
        "it went through. I won't send it again, so you aren't refunded twice: a colleague "
        "is checking with the payment provider and will email you within one business "
        "day.", after=9)

t = ticket("T-20260331-0240", "2026-03-31T13:20:46Z", "Got a green vase instead of white",
           "Victor Almeida", email("Victor Almeida"), "SU-88660",
           [("SM-VAS-WH", "Tall ribbed vase, white glaze", 1, 6800)],
           "saltmarsh-ceramics", "2026-03-26T20:01:11Z", delivered="2026-03-30T12:20:00Z")
t.cust("I ordered the white ribbed vase and got a green one. I'd like the white one "
       "please.")
t.note("Wrong variant; exchange.", after=34)
t.get_order()
t.procedures("wrong variant delivered", "wrong")
t.call("schedule_pickup", t.pickup_args(), lambda c: pickup_performed(t, c, "2026-04-02"),
       1190)
t.call("message_seller", {"seller_id": "saltmarsh-ceramics",
                          "text": "Order SU-88660: buyer received the green glaze instead of "
                                  "SM-VAS-WH (white). Collection booked for 2 April; please "
                                  "send the white vase."},
       lambda c: message_performed(t, c), 610)
t.reply("Sorry for the mix-up. A courier will pick up the green vase on Thursday 2 April "
        "between 8am and noon, and I've asked Saltmarsh Ceramics to send the white one.",
        after=10)

t = ticket("T-20260331-0311", "2026-03-31T15:45:09Z", "Deck chair collapsed, I was hurt",
           "Yasmin Farouk", email("Yasmin Farouk"), "SU-88571",
           [("GW-DCK-TK", "Folding teak deck chair", 1, 8900)],
           "greywell-outdoor", "2026-03-19T14:55:40Z", delivered="2026-03-24T09:20:00Z")
t.cust("The deck chair folded up under me yesterday and I cut my hand badly on the hinge. "
       "This is dangerous. What are you going to do about it?")
t.note("Injury report. Safety procedure: escalate, no refund offers from me.", after=25)
t.get_order(fail=True, ms=1980)
t.get_order(fail=True, ms=2050, after=3)
t.get_order(after=5)
t.procedures("injury safety report", "safety")
t.call("escalate_to_human", {"reason": "Injury report on SU-88571: folding teak deck chair "
                                       "collapsed, buyer cut their hand on the hinge."},
       lambda c: escalation_performed(t, c), 470)
t.reply("I'm really sorry you were hurt; I hope your hand is all right. Please don't use "
        "the chair again. I've passed this to our trust and safety team, who handle "
        "injuries, and they'll contact you within 4 business hours.", after=12)

# -- Wed 1 April ---------------------------------------------------------

t = ticket("T-20260401-0102", "2026-04-01T09:30:38Z", "Duvet cover ripped at the seam",
           "Henry Caldwell", email("Henry Caldwell"), "SU-88671",
           [("LH-DUV-KG", "Washed linen duvet cover, king", 1, 6400)],
           "linden-home-textiles", "2026-03-27T07:44:02Z", delivered="2026-03-31T11:10:00Z")
t.cust("The duvet cover arrived with the side seam ripped open for about a foot and a "
       "grease mark beside it. I'd like a refund please.")
t.note("Damaged in transit, refund $64.00.", after=38)
t.get_order()
t.procedures("damaged in transit refund", "damage")
t.call("issue_refund", t.refund_args(), unknown(), 5000)
t.note("Outcome unknown; do not retry. Telling the buyer a person will confirm.", after=2)
t.reply("I've requested your refund of $64.00, but the payment provider didn't confirm it "
        "in time. To avoid paying it twice I'm not resending it; a colleague will confirm "
        "by email within one business day.", after=9)

t = ticket("T-20260401-0165", "2026-04-01T11:10:53Z", "Blanket box lid split",
           "Lucia Romano", email("Lucia Romano", "example.org"), "SU-88667",
           [("OAK-BLB", "Oak blanket box", 1, 16500)],
           "ashcombe-furniture", "2026-03-27T16:18:25Z", delivered="2026-03-31T14:30:00Z")
t.cust("The lid of the blanket box is split down the middle, the carton had a hole in it. "
       "Not interested in a replacement after this, I'd like a refund.")
t.note("Damage, replacement declined. $165.00.", after=47)
t.get_order()
t.procedures("damaged in transit refund", "damage")
t.call("issue_refund", t.refund_args(),
       {"outcome": "not_performed", "reason": "amount 16500 exceeds the 15000 refund ceiling"},
       230)
t.call("escalate_to_human", {"reason": "SU-88667: $165.00 refund for a split oak blanket "
                                       "box, above the ceiling; buyer declined a "
                                       "replacement."},
       lambda c: escalation_performed(t, c), 500, after=4)
t.reply("I'm sorry about the blanket box. Refunds over $150 need a colleague's approval, so "
        "I've sent your request for $165.00 to the team. You'll hear from them within one "
        "business day.", after=10)

t = ticket("T-20260401-0247", "2026-04-01T14:25:17Z", "Stand mixer makes a grinding noise",
           "Owen Prichard", email("Owen Prichard"), "SU-88598",
           [("KK-MIX5-GR", "5-quart tilt-head stand mixer, sage", 1, 27900)],
           "kestrel-kitchen", "2026-03-20T09:05:33Z", delivered="2026-03-26T16:00:00Z")
t.cust("The mixer grinds loudly and the bowl wobbles at any speed above 2. I want to send it "
       "back.")
t.note("Faulty item: collect it. $279.00 is above the refund ceiling, so the refund is for "
       "a person after collection.", after=42)
t.get_order()
t.procedures("faulty item collection", "faulty")
t.call("schedule_pickup", t.pickup_args(), unknown("courier"), 5000)
t.note("Pickup outcome unknown; do not retry. A person will confirm the booking.", after=3)
t.reply("I've asked our courier to collect the mixer, but their system didn't confirm the "
        "booking. I won't book it twice; a colleague will confirm the collection date by "
        "email within one business day, and the refund follows once it's collected.",
        after=11)

t = ticket("T-20260401-0339", "2026-04-01T16:40:29Z", "Returning a rug",
           "Zainab Bello", email("Zainab Bello"), "SU-88592",
           [("PN-BRD120", "Braided cotton rug, 120 cm round", 1, 5900)],
           "pennant-rugs", "2026-03-20T11:27:44Z", delivered="2026-03-25T15:30:00Z")
t.cust("The round rug is smaller than I imagined. Can I return it? It's unused.")
t.note("Change-of-mind return within 30 days.", after=30)
t.get_order()
t.procedures("return change of mind", "return")
c = t.call("schedule_pickup", t.pickup_args(),
           lambda c: pickup_performed(t, c, "2026-04-03", "12:00", "16:00"), 1260)
first_pickup = ident("pk_", t.id, c)
t.reply("Of course. A courier will collect the rug on Friday 3 April between noon and 4pm. "
        "Once Pennant Rug Company has it back, we'll refund the $59.00.", after=9)
t.cust("Great. Please make sure the courier is actually booked, I'm taking the afternoon "
       "off for it.", after=620)
t.call("schedule_pickup", t.pickup_args(),
       {"outcome": "already_performed", "pickup_id": first_pickup,
        "window": window("2026-04-03", "12:00", "16:00"),
        "note": "this pickup was booked earlier on this ticket"}, 330, after=21)
t.reply("It's booked: the collection on Friday 3 April, noon to 4pm, is confirmed, and "
        "there's only the one booking.", after=8)

# -- Thu 2 April ---------------------------------------------------------

t = ticket("T-20260402-0118", "2026-04-02T09:50:40Z", "Table lamp flickers and buzzes",
           "Martin Holloway", email("Martin Holloway"), "SU-88640",
           [("ML-TBL-GL", "Glass globe table lamp", 1, 6900)],
           "marlow-lamp-co", "2026-03-24T19:33:58Z", delivered="2026-03-28T10:25:00Z")
t.cust("The globe lamp flickers constantly and buzzes. Tried three different bulbs. "
       "I'd like a refund and for you to take it away.")
t.note("Faulty electrical item, no sparks or smoke. Collect and refund $69.00.", after=35)
t.get_order()
t.procedures("faulty lamp refund", "faulty")
t.call("schedule_pickup", t.pickup_args(), lambda c: pickup_performed(t, c, "2026-04-06"),
       1180)
t.call("issue_refund", t.refund_args(), lambda c: refund_performed(t, c, 6900), 1540,
       moved=6900)
t.refunded = 6900
t.reply("Please unplug it and stop using it. I've refunded $69.00 to your original payment "
        "method (3 to 5 business days), and a courier will collect the lamp on Monday "
        "6 April between 8am and noon.", after=9)

t = ticket("T-20260402-0201", "2026-04-02T11:35:24Z", "Need a big planter collected",
           "Emily Sato", email("Emily Sato", "example.org"), "SU-88524",
           [("OL-TRG90", "Glazed trough planter, 90 cm", 1, 10500)],
           "orchard-lane-planters", "2026-03-16T12:48:36Z", delivered="2026-03-21T14:10:00Z")
t.cust("I'm returning the 90 cm trough planter. It weighs about 40 kg so I can't take it "
       "anywhere myself. ZIP is 97132.")
t.note("Return within 30 days; heavy item.", after=44)
t.get_order()
t.procedures("return change of mind", "return")
t.call("schedule_pickup", t.pickup_args(),
       {"outcome": "not_performed", "reason": "no courier slots for postcode 97132"}, 1390)
t.note("No courier slots. Buyer can't drop it off, so hand to a person for a freight "
       "pickup.", after=3)
t.call("escalate_to_human", {"reason": "SU-88524: return of a 40 kg trough planter; no "
                                       "courier slots for 97132, needs a freight pickup."},
       lambda c: escalation_performed(t, c), 510)
t.reply("Our regular courier has no slots in 97132 right now, so I've asked a colleague to "
        "arrange a freight pickup for the planter. They'll email you with a date; your "
        "30-day return window is protected while that's sorted out.", after=11)

t = ticket("T-20260402-0287", "2026-04-02T13:15:03Z", "Footstool fabric torn",
           "Diego Fuentes", email("Diego Fuentes"), "SU-88679",
           [("HF-FST-VL", "Upholstered velvet footstool, moss", 1, 11250)],
           "harrow-finch-interiors", "2026-03-28T15:20:14Z", delivered="2026-04-01T12:00:00Z")
t.cust("The velvet on the footstool is torn at one corner where a staple came through the "
       "box. Could I get a refund? I don't want another.")
t.note("Damaged in transit, replacement declined: refund $112.50.", after=39)
t.get_order()
t.procedures("damaged in transit refund", "damage")
t.call("issue_refund", t.refund_args(), unknown(), 5000)
t.note("Unknown outcome, do not retry.", after=2)
t.reply("I've put the refund of $112.50 through, but the payment provider didn't confirm "
        "it, so I can't promise yet that it's done. A colleague will check and confirm by "
        "email within one business day; I haven't resent it to avoid a double refund.",
        after=9)

t = ticket("T-20260402-0390", "2026-04-02T15:00:46Z", "Please chase the seller about my order",
           "Nora Fitzgerald", email("Nora Fitzgerald"), "SU-88622",
           [("SM-DIN12", "12-piece stoneware dinner set, slate", 1, 14200)],
           "saltmarsh-ceramics", "2026-03-21T17:09:28Z",
           tracking={"carrier": "FedEx", "status": "label_created",
                     "estimated_delivery": "2026-03-30"})
t.cust("My dinner set was due on Monday and the tracking still says label created. Can you "
       "ask the seller whether it has actually shipped?")
t.note("Not dispatched after 12 days. Asking the seller.", after=32)
t.get_order()
text = ("Order SU-88622 (SM-DIN12) still shows label created, due 30 March. Has it "
        "shipped? Please reply with a dispatch date today.")
c = t.call("message_seller", {"seller_id": "saltmarsh-ceramics", "text": text},
           lambda c: message_performed(t, c), 640)
first_msg = ident("msg_", t.id, c)
t.reply("I've asked Saltmarsh Ceramics to confirm today whether your dinner set has "
        "shipped. I'll update you as soon as they answer.", after=8)
t.cust("Thanks. Please also tell them I need it before the 10th, or I'll cancel.", after=930)
t.note("Chasing the seller again.", after=25)
t.call("message_seller", {"seller_id": "saltmarsh-ceramics", "text": text},
       {"outcome": "already_performed", "message_id": first_msg,
        "note": "this message was sent earlier on this ticket"}, 280)
t.note("Same text as before, so the tool didn't send it twice. Her deadline needs a new "
       "message.", after=3)
t.call("message_seller", {"seller_id": "saltmarsh-ceramics",
                          "text": "Order SU-88622: the buyer needs the dinner set before "
                                  "10 April or will cancel the order."},
       lambda c: message_performed(t, c), 600)
t.reply("Done: the seller already has my question about dispatch, and I've added that you "
        "need it before 10 April or you'll cancel.", after=8)

t = ticket("T-20260402-0502", "2026-04-02T17:20:11Z", "Bistro set arrived with a bent leg",
           "Sanjay Kapoor", email("Sanjay Kapoor"), "SU-88684",
           [("GW-BIS3", "3-piece steel bistro set, sage", 1, 14900)],
           "greywell-outdoor", "2026-03-27T10:55:37Z", delivered="2026-04-01T16:40:00Z")
t.cust("One of the bistro chairs has a badly bent leg. I'd like to return the whole set "
       "for a refund.")
t.note("Damaged item, buyer wants it collected. Booking the pickup first.", after=37)
t.get_order()
t.procedures("damaged item collection refund", "damage")
t.call("schedule_pickup", t.pickup_args(), NO_RESULT, 0)
t.system("Agent run ended without a result for call c3 (worker restarted). Ticket "
         "returned to the queue.", after=64)

# -- Fri 3 April ---------------------------------------------------------

t = ticket("T-20260403-0097", "2026-04-03T09:05:21Z", "Shelf brackets missing from kit",
           "Megan Doyle", email("Megan Doyle", "example.org"), "SU-88702",
           [("TP-FLS3", "Set of 3 floating shelves, pine", 1, 4500)],
           "thistle-pine-homeware", "2026-03-23T08:41:09Z", delivered="2026-03-27T12:00:00Z")
t.cust("My floating shelves came without the brackets. The seller replied last week that "
       "they're out of stock for a month. Can I get something back for that?")
t.system("Seller note on order SU-88702 (2026-03-30): brackets out of stock until May; "
         "seller accepts a partial refund of $15.00.")
t.note("Part unavailable; partial refund $15.00 agreed by the seller.", after=40)
t.get_order()
t.procedures("missing part partial refund", "parts")
t.call("issue_refund", t.refund_args(amount=1500), lambda c: refund_performed(t, c, 1500),
       1420, moved=1500)
t.refunded = 1500
t.call("message_seller", {"text": "Order SU-88702: partial refund of $15.00 issued for the "
                                  "missing shelf brackets, as you agreed."},
       lambda c: message_performed(t, c), 580)
t.reply("I've refunded $15.00 for the missing brackets to your original payment method "
        "(3 to 5 business days). Standard 20 mm concealed shelf brackets will fit if you "
        "don't want to wait for the seller's.", after=9)

t = ticket("T-20260403-0162", "2026-04-03T10:40:37Z", "Charged twice for my lamp?",
           "Tomasz Nowak", email("Tomasz Nowak"), "SU-88688",
           [("BW-WL-SWG", "Swing-arm wall light, brass", 1, 5400)],
           "brightwater-lighting", "2026-03-31T20:15:42Z", delivered="2026-04-02T13:30:00Z")
t.cust("My card statement shows two charges of $54.00 for the wall light. I only ordered "
       "one!")
t.note("Possible double charge. Read the order and the payment procedure.", after=30)
t.get_order(payments=[{"type": "charge", "amount_cents": 5400, "at": "2026-03-31T20:15:44Z"}])
t.procedures("charged twice card hold", "charges")
t.reply("I've checked the order: you were charged once, $54.00 on 31 March. The second line "
        "is a temporary authorisation hold from checkout, which your bank releases by "
        "itself within 5 business days. If it's still there after 8 April, reply here and "
        "we'll look into it with the payment provider.", after=17)

t = ticket("T-20260403-0236", "2026-04-03T13:30:04Z", "Hose reel cracked",
           "Leah Goldberg", email("Leah Goldberg"), "SU-88695",
           [("FR-HR30", "Wall-mounted hose reel, 30 m", 1, 5900)],
           "fenwick-rowe-garden", "2026-03-30T12:02:51Z", delivered="2026-04-02T10:15:00Z")
t.cust("The hose reel housing is cracked and the crank snapped. Arrived yesterday. Refund "
       "please.")
t.note("Damaged in transit, refund $59.00.", after=35)
t.get_order()
t.procedures("damaged in transit refund", "damage")
t.call("issue_refund", t.refund_args(), unknown(), 5000)
t.note("Unknown outcome; do-not-retry. Human queue has it.", after=2)
t.reply("I've requested a refund of $59.00, but I haven't had confirmation that it went "
        "through. A colleague will confirm by email within one business day. I haven't "
        "sent it a second time so you won't be refunded twice.", after=9)

t = ticket("T-20260403-0318", "2026-04-03T16:10:29Z", "Knife block arrived scratched",
           "Andre Baptiste", email("Andre Baptiste", "example.org"), "SU-88693",
           [("KK-KB7", "7-piece knife block set, walnut", 1, 12600)],
           "kestrel-kitchen", "2026-03-29T09:30:16Z", delivered="2026-04-02T15:50:00Z")
t.cust("The knife block is deeply scratched and two knives have bent tips, the box was "
       "crushed. I'd like a refund, not a replacement.")
t.note("Damaged in transit, refund $126.00.", after=41)
t.get_order(fail=True, ms=1670)
t.get_order(after=3)
t.procedures("damaged in transit refund", "damage")
c = t.call("issue_refund", t.refund_args(), lambda c: refund_performed(t, c, 12600), 1880,
           moved=12600)
first_refund = ident("re_", t.id, c)
t.refunded = 12600
t.cust("Also attaching the photos of the bent tips, in case you need them.", after=5)
t.system("Attachment: knives1.jpg, knives2.jpg")
t.note("Photos confirm the damage. Refund $126.00.", after=12)
t.call("issue_refund", t.refund_args(),
       {"outcome": "already_performed", "refund_id": first_refund,
        "note": "this refund was made earlier on this ticket"}, 310)
t.note("Already refunded a moment ago; only one refund exists.", after=2)
t.reply("Thanks for the photos. Your refund of $126.00 has been made, once, to your "
        "original payment method and should appear within 3 to 5 business days. Please be "
        "careful with the bent knives; you don't need to return them.", after=9)

# -- Sat 4 April ---------------------------------------------------------

t = ticket("T-20260404-0074", "2026-04-04T10:15:51Z", "Doormat arrived soaked in oil",
           "Ingrid Solberg", email("Ingrid Solberg"), "SU-88704",
           [("PN-DM-CO", "Coir doormat, 60 x 90 cm", 1, 2900)],
           "pennant-rugs", "2026-03-31T18:06:33Z", delivered="2026-04-03T11:20:00Z")
t.cust("The doormat is covered in what looks like engine oil. It stinks. Refund please.")
t.note("Damaged in transit, refund $29.00.", after=29)
t.get_order()
t.procedures("damaged in transit refund", "damage")
t.call("issue_refund", t.refund_args(), lambda c: refund_performed(t, c, 2900), 1350,
       moved=2900)
t.refunded = 2900
t.call("message_seller", {"seller_id": "pennant-rugs",
                          "text": "Order SU-88704: the coir doormat arrived soaked in oil. "
                                  "Buyer refunded $29.00. Please check with your carrier."},
       lambda c: message_performed(t, c), 620)
t.reply("That sounds horrible, sorry. I've refunded $29.00 to your original payment method "
        "(3 to 5 business days); please just throw the mat away.", after=8)

t = ticket("T-20260404-0129", "2026-04-04T12:00:18Z", "Change my delivery address",
           "Carlos Rivera", email("Carlos Rivera"), "SU-88710",
           [("LH-THR-OC", "Chunky knit throw, ochre", 1, 7800)],
           "linden-home-textiles", "2026-04-01T21:40:55Z",
           tracking={"carrier": "UPS", "status": "in_transit",
                     "tracking_number": "1Z 8V4 E71 03 5521 6610",
                     "estimated_delivery": "2026-04-07"})
t.cust("I'm moving next week, can you send my throw to my new address instead? "
       "It's 18 Alder Street, Portland.")
t.note("Address change after dispatch? Read the order.", after=33)
t.get_order()
t.procedures("change delivery address", "address")
t.reply("Your throw has already left the seller, so we can't change the address from "
        "here. UPS can: use tracking number 1Z 8V4 E71 03 5521 6610 on the UPS website and "
        "choose 'Change delivery'. It's currently due on Tuesday 7 April.", after=15)

t = ticket("T-20260404-0251", "2026-04-04T14:30:44Z", "Lamp sparked when switched on",
           "Julia Weiss", email("Julia Weiss", "example.org"), "SU-88698",
           [("ML-DSK-CH", "Adjustable desk lamp, chrome", 1, 5900)],
           "marlow-lamp-co", "2026-03-30T11:11:20Z", delivered="2026-04-02T09:45:00Z")
t.cust("The desk lamp sparked and there was a burning smell when I switched it on. I "
       "unplugged it straight away. Please take it back.")
t.note("Sparks and burning smell: safety. Escalate and collect; refund is for the safety "
       "team to decide.", after=27)
t.get_order()
t.procedures("sparks burning smell electrical", "faulty")
t.call("escalate_to_human", {"reason": "SU-88698: desk lamp sparked with a burning smell on "
                                       "first use; buyer unplugged it."},
       lambda c: escalation_performed(t, c), 490)
t.call("schedule_pickup", t.pickup_args(), lambda c: pickup_performed(t, c, "2026-04-07"),
       1230)
t.reply("Thank you for unplugging it straight away; please keep it unplugged. A courier "
        "will collect the lamp on Tuesday 7 April between 8am and noon, and our safety "
        "team has your report and will contact you about the refund within 4 business "
        "hours.", after=12)

# -- Sun 5 April ---------------------------------------------------------

t = ticket("T-20260405-0066", "2026-04-05T10:05:09Z", "Planter set cracked",
           "Patrick Nolan", email("Patrick Nolan"), "SU-88716",
           [("OL-HB3", "Set of 3 herb planters, white", 1, 3600)],
           "orchard-lane-planters", "2026-04-01T13:44:27Z", delivered="2026-04-04T12:30:00Z")
t.cust("Two of the three herb planters are cracked. Can I have a refund? Don't bother with "
       "a replacement.")
t.note("Damaged in transit, refund $36.00.", after=31)
t.get_order(fail=True, ms=1440)
t.note("Order service unavailable; retrying the read.", after=2)
t.get_order(after=3)
t.procedures("damaged in transit refund", "damage")
t.call("issue_refund", t.refund_args(), lambda c: refund_performed(t, c, 3600), 1290,
       moved=3600)
t.refunded = 3600
t.reply("Sorry about the planters. I've refunded $36.00 to your original payment method; "
        "it should appear within 3 to 5 business days.", after=8)

t = ticket("T-20260405-0143", "2026-04-05T11:40:32Z", "Does the seller offer assembly?",
           "Amara Nwosu", email("Amara Nwosu", "example.org"), "SU-88720",
           [("HF-SBD-OK", "Oak sideboard, 3 doors", 1, 38900)],
           "harrow-finch-interiors", "2026-04-03T19:22:48Z",
           tracking={"carrier": "Parcelway Freight", "status": "awaiting_dispatch",
                     "estimated_delivery": "2026-04-14"})
t.cust("Before my sideboard arrives: does the seller offer assembly, or at least take away "
       "the packaging? I'm not great with an Allen key.")
t.note("Question for the seller.", after=35)
t.get_order()
t.call("message_seller", {"text": "Order SU-88720 (HF-SBD-OK): the buyer asks whether you "
                                  "offer assembly or packaging removal with delivery, and "
                                  "at what cost."},
       lambda c: message_performed(t, c), 570)
t.reply("Good question. I've asked Harrow & Finch Interiors whether they offer assembly or "
        "take the packaging away, and what it costs. I'll pass on their answer here; your "
        "sideboard is due on 14 April.", after=9)


# ==========================================================================
# Balances, output, summary
# ==========================================================================

def main():
    tickets = sorted(TICKETS, key=lambda tk: tk.opened)
    ids = [tk.id for tk in tickets]
    assert len(set(ids)) == len(ids), "duplicate ticket id"

    moved = [(m[0], tk.seller_id, m[1]) for tk in tickets for m in tk.moved]
    out = sys.stdout
    n_events = 0
    for tk in tickets:
        as_of = tk.opened.replace(hour=8, minute=0, second=0, microsecond=0)
        assert tk.opened >= as_of, tk.id
        start = SELLERS[tk.seller_id][1]
        balance = start - sum(c for (when, s, c) in moved
                              if s == tk.seller_id and when < as_of)
        lines = [tk.opened_event(balance, as_of)] + tk.events
        last = tk.opened
        for ev in lines:
            t = parse(ev["at"])
            assert t >= last, (tk.id, ev)
            last = t
            out.write(json.dumps(ev, ensure_ascii=False, separators=(",", ":")) + "\n")
            n_events += 1

    # summary ----------------------------------------------------------
    calls = Counter(ev["tool"] for tk in tickets for ev in tk.events
                    if ev["type"] == "tool_call")
    dup = {}
    for tk in tickets:
        per_intent = Counter()
        cents = {}
        for (_, c, intent) in tk.moved:
            per_intent[intent] += 1
            cents[intent] = c
        d = sum((k - 1) * cents[i] for i, k in per_intent.items() if k > 1)
        if d:
            dup[tk.id] = d
    first = "T-20260317-0412"
    err = sys.stderr
    err.write("tickets: %d (incident %d, ordinary %d)\n" % (
        len(tickets), len(dup), len(tickets) - len(dup)))
    err.write("events: %d\n" % n_events)
    err.write("tool calls: %s\n" % ", ".join("%s %d" % kv for kv in sorted(calls.items())))
    for tid, d in dup.items():
        err.write("duplicate payout %s: %d cents\n" % (tid, d))
    err.write("duplicate cents: %d (the four after %s: %d)\n" % (
        sum(dup.values()), first, sum(d for t, d in dup.items() if t != first)))


if __name__ == "__main__":
    main()
