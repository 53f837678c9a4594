#pragma once
// What this console's user may change, for every widget that offers a change. In a team's
// database the user's roles decide (the database refuses the rest anyway); a read-only
// database or an export refuses every change. A widget asks refusal() for the reason to show
// beside a disabled control, and follows changed() when an admin grants or revokes a role.

#include "store/operatorroles.h"

#include <QList>
#include <QObject>
#include <QPointer>

class QAction;
class QShortcut;

namespace verity {

class StoreSession;

class RoleLimits : public QObject
{
    Q_OBJECT

public:
    // `readOnlyReason` not empty: nothing may change, whatever the roles.
    RoleLimits(StoreSession &store, QString readOnlyReason, QObject *parent = nullptr);

    // Reads the user's roles again; changed() when they differ.
    void refresh();
    // While the database cannot be reached nothing may change, whatever the roles: a lookup
    // whose answer could not be recorded would be evidence lost. Empty: reachable again.
    void setUnreachable(const QString &reason);
    const QString &unreachable() const { return m_unreachable; }
    // Empty when allowed; else why not, in words for a tooltip or the status bar.
    QString refusal(TeamRole needed, const QString &what) const;
    bool allows(TeamRole role) const { return refusal(role, QString()).isEmpty(); }
    const OperatorRoles &roles() const { return m_roles; }
    // "ben · support" in a team's database; empty on a desk's file.
    QString badge() const;
    // Keeps `action` enabled only while the role is held, its status tip saying why not. While
    // it is not, its shortcut says why (refusedByKey) instead of doing nothing.
    void limit(QAction *action, TeamRole needed, const QString &what);

signals:
    void changed();
    void refusedByKey(const QString &why);

private:
    struct Limited
    {
        QPointer<QAction> action;
        TeamRole needed;
        QString what;
        QString tip; // the action's own status tip, shown while it is allowed
        QPointer<QShortcut> refusedKey; // the action's keys while it is refused
    };
    void apply(const Limited &limited) const;

    StoreSession &m_store;
    QString m_readOnlyReason;
    OperatorRoles m_roles;
    QString m_error; // the roles could not be read: every change refused with this
    QString m_unreachable; // why the database cannot be reached, while it cannot
    QList<Limited> m_limited;
};

} // namespace verity
