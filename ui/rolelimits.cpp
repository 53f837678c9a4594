#include "rolelimits.h"

#include "store/store.h"

#include <QAction>
#include <QShortcut>
#include <QWidget>

namespace verity {

RoleLimits::RoleLimits(StoreSession &store, QString readOnlyReason, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_readOnlyReason(std::move(readOnlyReason))
    , m_roles(OperatorRoles::everyone())
{
    refresh();
}

void RoleLimits::refresh()
{
    const Expected<OperatorRoles> read = m_store.sessionRoles();
    // Unreadable roles allow nothing: the database would refuse what they do not allow anyway,
    // and a button that fails later is worse than one that says why now.
    const OperatorRoles roles = read ? *read : OperatorRoles(m_store.sessionUser(), {});
    const QString error = read ? QString() : read.message();
    if (roles.summary() == m_roles.summary() && roles.user() == m_roles.user() && error == m_error)
        return;
    m_roles = roles;
    m_error = error;
    for (const Limited &limited : std::as_const(m_limited))
        apply(limited);
    emit changed();
}

void RoleLimits::setUnreachable(const QString &reason)
{
    if (reason == m_unreachable)
        return;
    m_unreachable = reason;
    for (const Limited &limited : std::as_const(m_limited))
        apply(limited);
    emit changed();
}

QString RoleLimits::refusal(TeamRole needed, const QString &what) const
{
    if (!m_unreachable.isEmpty())
        return what.isEmpty() ? tr("The team's database cannot be reached (%1)").arg(m_unreachable)
                              : tr("The team's database cannot be reached, so %1 waits until it is back (%2)")
                                        .arg(what, m_unreachable);
    if (!m_readOnlyReason.isEmpty())
        return what.isEmpty()
                ? m_readOnlyReason
                : tr("%1: %2 is done in a console that can write the database").arg(m_readOnlyReason, what);
    if (!m_error.isEmpty())
        return tr("Your roles in this database could not be read (%1)").arg(m_error);
    return m_roles.refusal(needed, what);
}

QString RoleLimits::badge() const
{
    if (!m_roles.isTeam())
        return {};
    return tr("%1 · %2").arg(m_roles.user(), m_roles.summary());
}

void RoleLimits::limit(QAction *action, TeamRole needed, const QString &what)
{
    // A disabled action's keys do nothing at all: these stand in for them, saying why.
    QShortcut *refusedKey = nullptr;
    if (auto *window = qobject_cast<QWidget *>(parent()); window && !action->shortcut().isEmpty()) {
        refusedKey = new QShortcut(action->shortcut(), window);
        refusedKey->setContext(Qt::WindowShortcut);
        connect(refusedKey, &QShortcut::activated, this,
                [this, needed, what] { emit refusedByKey(refusal(needed, what)); });
    }
    m_limited.append(Limited{action, needed, what, action->statusTip(), refusedKey});
    apply(m_limited.constLast());
}

void RoleLimits::apply(const Limited &limited) const
{
    if (!limited.action)
        return;
    const QString why = refusal(limited.needed, limited.what);
    limited.action->setEnabled(why.isEmpty());
    limited.action->setStatusTip(why.isEmpty() ? limited.tip : why);
    limited.action->setToolTip(why); // a menu shows it (and only a set one) beside the greyed item
    if (limited.refusedKey)
        limited.refusedKey->setEnabled(!why.isEmpty()); // never both: the same keys would be ambiguous
}

} // namespace verity
