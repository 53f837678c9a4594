#pragma once
// How the systems a registry names ("payments", "courier", "messaging") are spoken of to a
// person, in every message from the request up to the settlement.

#include <QString>

namespace verity {

// "the payment provider", "the courier", "the seller-messaging service", "the returns system".
QString systemWords(const QString &system);
// What one record of the system is called: "refund", "pickup", "message", else "record".
QString recordNoun(const QString &system);

} // namespace verity
