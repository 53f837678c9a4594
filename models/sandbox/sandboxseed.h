#pragma once
// The provider's side of Verity's demo data (the March incident), for `verity sandbox
// --seed-demo`. It is read from the demo file itself through Verity's real importer, so the
// sandbox and a console on the demo database agree on every seller, payment and intent key:
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
    QStringList notPerformed; // "T-…/c3": unknown calls that never reached the provider
};

Expected<SandboxSeedReport> seedDemo(SandboxState &state);

} // namespace verity
