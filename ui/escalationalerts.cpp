#include "escalationalerts.h"

#include "domain/hiddencharacters.h"
#include "domain/money.h"
#include "resolution/escalationclaims.h"
#include "store/store.h"

#include <QDateTime>

namespace verity {

namespace {

// A run of arrivals is told as one alert naming the first few.
constexpr int namedArrivals = 3;
constexpr int arrivalsRead = 50;

// "$96.50 issue_refund" or "schedule_pickup": an escalated write in a few words. Ids and tool
// names come from transcripts: shown as they are stored, nothing hidden in them.
QString escalationWords(const EscalationRow &row)
{
    const QString tool = visibleText(row.tool);
    return row.amountCents ? QStringLiteral("%1 %2").arg(formatMoney(*row.amountCents, row.currency), tool)
                           : tool;
}

} // namespace

EscalationAlerts::EscalationAlerts(EscalationStore &store, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_now([] { return QDateTime::currentMSecsSinceEpoch(); })
    , m_inFront([] { return false; })
{
    m_claimClock.setInterval(30 * 1000);
    connect(&m_claimClock, &QTimer::timeout, this, &EscalationAlerts::checkClaims);
}

void EscalationAlerts::setClock(std::function<qint64()> nowMs)
{
    m_now = std::move(nowMs);
}

void EscalationAlerts::setOperatorName(std::function<QString()> name)
{
    m_operatorName = std::move(name);
}

void EscalationAlerts::setInFront(std::function<bool()> inFront)
{
    m_inFront = std::move(inFront);
}

void EscalationAlerts::setEnabled(bool enabled)
{
    m_enabled = enabled;
}

void EscalationAlerts::start()
{
    Expected<QList<EscalationRow>> newest = m_store.openEscalationsAfter(0, 1);
    if (!newest) {
        emit errorOccurred(newest.message());
        return;
    }
    m_newestSeen = newest->isEmpty() ? 0 : newest->first().id;
    m_started = true;
    m_claimClock.start();
}

void EscalationAlerts::stop()
{
    m_started = false;
    m_claimClock.stop();
}

void EscalationAlerts::escalationsChanged()
{
    if (!m_started)
        return;
    Expected<QList<EscalationRow>> arrived = m_store.openEscalationsAfter(m_newestSeen, arrivalsRead);
    if (!arrived) {
        emit errorOccurred(arrived.message());
        return;
    }
    if (arrived->isEmpty())
        return;
    m_newestSeen = arrived->first().id; // newest first
    // In front of the console, the queue itself shows them; turned off, nobody is told.
    if (m_enabled && !m_inFront())
        emit alerted(arrivalAlert(*arrived));
}

EscalationAlert EscalationAlerts::arrivalAlert(const QList<EscalationRow> &arrived) const
{
    const EscalationRow &newest = arrived.first();
    EscalationAlert alert{newest.id, newest.ticketId, newest.callExtId, {}, {}};
    if (arrived.size() == 1) {
        alert.title = tr("New escalation: %1").arg(visibleText(newest.ticketExtId));
        alert.text = tr("%1, call %2: its outcome is unknown. Look it up before anything is sent again.")
                             .arg(escalationWords(newest), visibleText(newest.callExtId));
        return alert;
    }
    alert.title = arrived.size() < arrivalsRead ? tr("%1 new escalations").arg(arrived.size())
                                                : tr("%1 or more new escalations").arg(arrived.size());
    QStringList named;
    for (const EscalationRow &row : arrived.first(std::min<qsizetype>(arrived.size(), namedArrivals)))
        named << tr("%1 %2").arg(visibleText(row.ticketExtId), escalationWords(row));
    alert.text = named.join(QStringLiteral("; "));
    if (arrived.size() > namedArrivals)
        alert.text += tr("; and %1 more").arg(arrived.size() - namedArrivals);
    alert.text += tr(". Each outcome is unknown: look them up before anything is sent again.");
    return alert;
}

void EscalationAlerts::checkClaims()
{
    const QString me = m_operatorName ? m_operatorName() : QString();
    if (!m_started || !m_enabled || me.isEmpty())
        return;
    const qint64 now = m_now();
    Expected<QList<EscalationRow>> held = m_store.claimsHeldBy(me, now);
    if (!held) {
        emit errorOccurred(held.message());
        return;
    }
    for (const EscalationRow &row : std::as_const(*held)) {
        // A console renewing the claim (its dialog open) moves its end on: never within reach.
        if (row.claimedUntil - now > claimWarningMs)
            break; // soonest first
        if (m_claimsTold.contains({row.id, row.claimedUntil}))
            continue;
        m_claimsTold.insert({row.id, row.claimedUntil});
        emit alerted({row.id, row.ticketId, row.callExtId,
                      tr("Your claim lapses at %1").arg(claimEndWords(row.claimedUntil)),
                      tr("Escalation #%1, %2 %3: settle it before then, or it goes back to the queue for "
                         "anyone to take.")
                              .arg(row.id)
                              .arg(visibleText(row.ticketExtId), escalationWords(row))});
    }
}

} // namespace verity
