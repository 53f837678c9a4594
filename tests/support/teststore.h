#pragma once
// A store as the console and the commands get one: through the product's factory, held as a
// Store whatever the backend. For the tests that need a store to work on rather than the SQLite
// backend itself (those are in tests/store).

#include "store/storefactory.h"

#include <QList>
#include <QString>

#include <memory>

namespace verity::test {

// The store at `location` (created when there is none), or null when it cannot be opened,
// with the reason in `error` or, when the caller asks for none, in the test's log.
inline std::unique_ptr<Store> openTestStore(const QString &location, QString *error = nullptr)
{
    Expected<std::unique_ptr<Store>> store = openStore(location);
    if (!store) {
        if (error)
            *error = store.message();
        else
            qWarning("cannot open the store %s: %s", qPrintable(location), qPrintable(store.message()));
        return nullptr;
    }
    return std::move(*store);
}

// The open escalation of call `call` ("c3") in ticket `ticket` ("T-20260317-0412"), or 0 when
// that call has none open.
inline qint64 openEscalationId(Store &store, const QString &ticket, const QString &call)
{
    const Expected<qint64> count = store.countOpenEscalations();
    if (!count)
        return 0;
    const Expected<QList<EscalationRow>> open = store.openEscalations(0, int(*count));
    if (!open)
        return 0;
    for (const EscalationRow &row : *open) {
        if (row.ticketExtId == ticket && row.callExtId == call)
            return row.id;
    }
    return 0;
}

} // namespace verity::test
