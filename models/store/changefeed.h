#pragma once
// What other consoles and processes changed in a database, as the database announces it
// (PostgreSQL's LISTEN/NOTIFY: no polling; SQLite's data version, which changes only when
// another connection commits). A burst of announcements, an import's say, arrives as one
// change a moment later, naming every kind of data it touched, so a console reads each view
// again once, not once per row.

#include <QFlags>
#include <QObject>
#include <QTimer>

#include <functional>

namespace verity {

enum class StoreArea {
    Tickets = 0x1, // tickets, their calls and messages, and the queue's counts
    Escalations = 0x2, // escalations, their claims and settlements
    Audit = 0x4,
    Finance = 0x8, // the ledger and payout marks
    Notes = 0x10, // trainers' notes
};
Q_DECLARE_FLAGS(StoreAreas, StoreArea)
Q_DECLARE_OPERATORS_FOR_FLAGS(StoreAreas)
inline constexpr StoreAreas everyArea = StoreArea::Tickets | StoreArea::Escalations | StoreArea::Audit
        | StoreArea::Finance | StoreArea::Notes;

class ChangeFeed : public QObject
{
    Q_OBJECT

public:
    // Announcements closer together than this arrive as one change.
    static constexpr int gatherMs = 150;

    explicit ChangeFeed(QObject *parent = nullptr);

    // One announcement: the area's name as the database sends it ("tickets"); unknown names
    // count as every area, so a newer schema's announcement is never missed.
    void announce(const QString &area);
    // The database cannot be reached, in the server's or libpq's words; the feed hears nothing
    // until it can.
    void reportUnreachable(const QString &reason);
    // It can again: anything may have changed meanwhile, so every area is announced.
    void reportReachable();
    bool isReachable() const { return m_reachable; }
    // Asks the database whether it is still there before saying (a question, not a guess from
    // the last tick); unreachable() first when it is not.
    bool confirmReachable();
    void setConfirmation(std::function<void()> ask) { m_confirm = std::move(ask); }

signals:
    void changed(verity::StoreAreas areas);
    void unreachable(const QString &reason);
    void reachable();

private:
    QTimer m_gather;
    StoreAreas m_pending;
    bool m_reachable = true;
    std::function<void()> m_confirm;
};

// The channel the database announces on.
inline constexpr const char *changeChannel = "verity_changes";

} // namespace verity
