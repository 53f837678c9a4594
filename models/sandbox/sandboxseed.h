#pragma once
// The other side of Verity's demo data (the March incident): what the payment provider, the
// courier and the messaging service hold, for `verity sandbox --seed-demo`. It is read from
// the demo file itself through Verity's real importer, so the sandbox and a console on the
// demo database agree on every seller, payment and intent key:
//  - each seller, with the balance the demo gives the first time it names the seller;
//  - a succeeded payment pi_<order id> for every order, for the order's item total;
//  - a refund for every issue_refund call the provider accepted: each call recorded as
//    performed; each old-tool call whose error hid an accepted refund (the incident: both
//    SU-88421 refunds exist, and so does every timed-out refund of the four tickets like
//    it); and of the fixed tool's unknown refunds, the first, third and fifth in time (the
//    others never reached the provider), so a lookup finds some and not others.
// Every refund carries metadata[intent_key] (the key Verity computed for the call),
// metadata[ticket_id], metadata[order_id] and metadata[item_id], and was created at the
// call's time; it debits the seller, so Ashcombe Furniture ends at -$47.00.
//  - a pickup at the courier for every schedule_pickup call, and a message at the messaging
//    service for every message_seller call, recorded as performed; of the unknown ones of each
//    tool, the first, third and fifth in time reached their system and the others did not.
//    Each is for the ticket's order (a message_seller call names no order), carries
//    metadata[intent_key] and metadata[ticket_id], and was created at the call's time.
// Seeding a seeded state changes nothing.

#include "sandboxstate.h"

#include <QStringList>

namespace verity {

struct SandboxSeedReport
{
    bool alreadySeeded = false;
    int accounts = 0;
    int payments = 0;
    int refunds = 0;
    int pickups = 0;
    int messages = 0;
    QStringList notPerformed; // "T-…/c3": unknown refunds that never reached the provider
    QStringList pickupsNotMade; // unknown schedule_pickup calls that never reached the courier
    QStringList messagesNotSent; // unknown message_seller calls that never reached the messaging service
};

Expected<SandboxSeedReport> seedDemo(SandboxState &state);

} // namespace verity
