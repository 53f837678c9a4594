#pragma once
// When the courier collects: the window it named for a pickup ("Thu 2 Apr, 08:00-12:00"),
// which is what a customer needs to know of a booking. The courier names it in its record,
// which a lookup or a write kept as evidence, and a tool may repeat it in its result.

#include "store/records.h"

#include <QList>
#include <QString>

namespace verity {

// The "window" of the record `recordId` in an evidence response (one or more HTTP answers,
// each a status line, headers, a blank line and a JSON body: the record or a list of records).
QString pickupWindowOfRecord(const QString &evidenceResponse, const QString &recordId);

// The "window" a tool's JSON result names; empty when it names none.
QString pickupWindowInResult(const QString &rawResult);

// The courier's record that settled the escalation first (its own word, and the booking a
// repeat made), then the results of the calls of its intent.
QString pickupWindow(const QList<Evidence> &evidence, const QList<ToolCallRow> &calls);

} // namespace verity
