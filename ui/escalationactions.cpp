#include "escalationactions.h"

#include "attestdialog.h"
#include "evidencedialog.h"
#include "resolution/escalationclaims.h"
#include "resolution/escalationhistory.h"
#include "resolution/escalationtext.h"
#include "resolution/owedwrite.h"
#include "resolution/providerconnection.h"
#include "resolutiondialog.h"
#include "rolelimits.h"
#include "store/store.h"
#include "typedconfirmation.h"

#include <QDateTime>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>

namespace verity {

namespace {

// A console renews its claims a third of the way through their lease, well before they lapse.
constexpr qint64 renewEveryMs = EscalationClaims::defaultLeaseMs / 3;

// Cancel is the default: Enter never sends money.
bool askBeforeSending(QWidget *parent, const QString &question, const QString &typeToConfirm)
{
    if (!typeToConfirm.isEmpty()) {
        TypedConfirmation typed(question, typeToConfirm, parent);
        return typed.exec() == QDialog::Accepted;
    }
    QMessageBox box(QMessageBox::Warning, QObject::tr("Send it once more?"), question, QMessageBox::NoButton,
                    parent);
    box.setTextFormat(Qt::PlainText);
    QPushButton *send = box.addButton(QObject::tr("Send once more"), QMessageBox::AcceptRole);
    QPushButton *cancel = box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(cancel);
    box.setEscapeButton(cancel);
    box.exec();
    return box.clickedButton() == send;
}

} // namespace

EscalationActions::EscalationActions(ResolutionStore &store, ProviderConnection &provider, QWidget *window)
    : QObject(window)
    , m_store(store)
    , m_provider(provider)
    , m_window(window)
    , m_confirm(askBeforeSending)
{}

QString EscalationActions::lookupSystem(qint64 escalationId)
{
    EscalationResolver *resolver = m_provider.resolver();
    if (!resolver)
        return {};
    Expected<EscalationDetail> detail = resolver->escalation(escalationId);
    return detail ? resolver->route(*detail).system : QString();
}

CallActions EscalationActions::actionsFor(const ToolCallRow &call)
{
    CallActions actions;
    if (!call.escalationId)
        return actions;
    if (readOnly())
        actions.readOnlyReason = readOnlyReason();
    else
        actions.readOnlyReason = supportRefusal();
    EscalationResolver *resolver = m_provider.resolver();
    if (!resolver) {
        // Without a provider nothing can be asked yet; a refund still names where it would go,
        // and its button asks for the provider's settings.
        if (call.toolClass == ToolClass::WriteMoney && call.amountCents && !call.intentKey.isEmpty())
            actions.lookupSystem = tr("the payment provider");
        if (const Expected<std::optional<EscalationDetail>> stored = m_store.escalation(*call.escalationId);
            stored && *stored)
            noteWayBack(actions, **stored, nullptr);
        return actions;
    }
    Expected<EscalationDetail> detail = resolver->escalation(*call.escalationId);
    if (!detail) {
        actions.unreadable = detail.message(); // not "no system can be asked": that is not known
        return actions;
    }
    actions.lookupSystem = resolver->route(*detail).system;
    noteWayBack(actions, *detail, resolver);
    return actions;
}

void EscalationActions::noteWayBack(CallActions &actions, const EscalationDetail &detail,
                                    EscalationResolver *resolver)
{
    const Expected<bool> owed = stillOwed(m_store, detail);
    actions.owed = owed && *owed;
    if (!actions.owed)
        return;
    if (!resolver) {
        actions.repeatRefusal =
                tr("this console has no provider settings yet (Provider > Payment provider settings)");
        // Nothing can be asked from here, so a person's check is the way back for what a check
        // found absent; its button asks for the name it is recorded under first.
        actions.mayReplaceCheck = standsOnACheck(detail) && detail.toolClass != ToolClass::WriteMoney;
        return;
    }
    const Expected<RepeatPlan> plan = resolver->planRepeat(detail.id);
    actions.mayPerformAgain = bool(plan);
    actions.lookupFirst = plan && plan->lookupFirst;
    if (!plan)
        actions.repeatRefusal = plan.message();
    actions.mayReplaceCheck = standsOnACheck(detail) && !resolver->route(detail).canLookUp;
}

bool EscalationActions::readOnly() const
{
    return m_window->property("verityReadOnly").toBool();
}

QString EscalationActions::readOnlyReason() const
{
    return m_window->property("verityReadOnlyReason").toString();
}

QString EscalationActions::supportRefusal() const
{
    return m_limits ? m_limits->refusal(TeamRole::Support, tr("settling or claiming escalations"))
                    : QString();
}

EscalationResolver *EscalationActions::resolverFor(const QString &readOnlyText, const QString &unsetText)
{
    if (readOnly()) {
        emit message(readOnlyText);
        return nullptr;
    }
    if (const QString refused = supportRefusal(); !refused.isEmpty()) {
        emit message(refused);
        return nullptr;
    }
    EscalationResolver *resolver = m_provider.resolver();
    if (!resolver) {
        // Saving the settings only saves them: the person then chooses again what to do.
        emit message(unsetText);
        if (m_settingsPrompt)
            m_settingsPrompt();
    }
    return resolver;
}

ResolutionDialog *EscalationActions::openResolution(qint64 escalationId)
{
    EscalationResolver *resolver = resolverFor(
            tr("%1: lookups are made in a console that can write the ticket's database.")
                    .arg(readOnlyReason()),
            tr("Set the payment provider's address first (Provider > Payment provider settings), then "
               "look the write up again."));
    if (!resolver || !claimFor(*resolver, escalationId))
        return nullptr;
    auto *dialog = new ResolutionDialog(*resolver, escalationId, m_confirm, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // Off the list before anything its closing sets off (giving its claim back) reads the list:
    // a dialog being destroyed is told nothing.
    m_dialogs.append(dialog);
    connect(dialog, &QObject::destroyed, this, [this, dialog] { m_dialogs.removeAll(dialog); });
    holdWhileOpen(dialog, escalationId);
    followDatabase(dialog);
    connect(dialog, &ResolutionDialog::settled, this, &EscalationActions::settled);
    connect(dialog, &ResolutionDialog::attestRequested, this, [this, dialog](qint64 id) {
        if (AttestDialog *check = attest(id))
            connect(check, &QDialog::accepted, dialog, &ResolutionDialog::showCurrent);
    });
    dialog->open();
    return dialog;
}

ResolutionDialog *EscalationActions::lookUp(qint64 escalationId)
{
    // Asked without a key, the provider could only refuse: ask for the key instead.
    if (m_provider.resolver() && !readOnly() && !m_provider.hasApiKey()) {
        emit message(
                tr("Enter the provider's API key first (Provider > Payment provider settings), then look "
                   "the write up again."));
        if (m_settingsPrompt)
            m_settingsPrompt();
        return nullptr;
    }
    if (EscalationResolver *resolver = m_provider.resolver(); resolver && !readOnly()) {
        const Expected<EscalationDetail> detail = resolver->escalation(escalationId);
        const EscalationRoute route = detail ? resolver->route(*detail) : EscalationRoute{};
        if (detail && detail->state == EscalationState::Open && !route.canLookUp && !route.needsPayment) {
            attest(escalationId); // nothing can be asked: the check a person can record
            return nullptr;
        }
    }
    ResolutionDialog *dialog = openResolution(escalationId);
    if (dialog)
        dialog->startLookup();
    return dialog;
}

ResolutionDialog *EscalationActions::open(qint64 escalationId)
{
    // Where it stands, and the ways out of it (look up, record a check): nothing runs yet.
    ResolutionDialog *dialog = openResolution(escalationId);
    if (dialog)
        dialog->showCurrent();
    return dialog;
}

std::optional<EscalationDetail> EscalationActions::claimNext()
{
    EscalationResolver *resolver =
            resolverFor(tr("%1: escalations are claimed in a console that can write the ticket's database.")
                                .arg(readOnlyReason()),
                        tr("Set the payment provider's address first (Provider > Payment provider settings), "
                           "then claim the "
                           "next escalation."));
    if (!resolver)
        return std::nullopt;
    EscalationClaims claims(m_store, resolver->operatorName());
    claims.setRenewal(renewEveryMs);
    Expected<std::optional<EscalationClaim>> claimed = claims.claimNext();
    if (!claimed) {
        emit message(tr("Could not claim the next escalation: %1").arg(claimed.message()));
        return std::nullopt;
    }
    emit claimsChanged();
    if (!*claimed) {
        emit message(tr("No escalation is left to claim: every one is settled or someone is working on it."));
        return std::nullopt;
    }
    const Expected<EscalationDetail> detail = resolver->escalation((*claimed)->escalationId);
    if (!detail) {
        emit message(detail.message());
        return std::nullopt;
    }
    stateFact((*claimed)->escalationId,
              tr("You claimed %1 in %2 until %3.")
                      .arg(detail->callExtId, detail->ticketExtId, claimEndWords((*claimed)->until)));
    return *detail;
}

bool EscalationActions::claimFor(EscalationResolver &resolver, qint64 escalationId)
{
    EscalationClaims claims(m_store, resolver.operatorName());
    claims.setRenewal(renewEveryMs);
    const Expected<EscalationClaim> claim = claims.claim(escalationId);
    if (!claim) {
        emit message(tr("Could not claim escalation %1: %2").arg(escalationId).arg(claim.message()));
        QMessageBox::warning(m_window, tr("Not claimed"),
                             tr("Escalation %1 could not be claimed, so nothing was done:\n%2")
                                     .arg(escalationId)
                                     .arg(claim.message()));
        return false;
    }
    if (claim->taken)
        emit claimsChanged();
    if (claim->taken || claim->holder.isEmpty())
        return true; // free (a settled escalation holds no claim), or now this operator's
    const QString text = tr("%1 is working on this escalation (claimed until %2). Nothing can be looked up, "
                            "sent or recorded for it from here until they give it back or an admin releases "
                            "the claim.")
                                 .arg(claim->holder, claimEndWords(claim->until));
    stateFact(escalationId, text);
    QMessageBox box(QMessageBox::Information, tr("Claimed by %1").arg(claim->holder), text, QMessageBox::Ok,
                    m_window);
    box.setTextFormat(Qt::PlainText);
    // An admin may take the claim off, say when its holder left with the dialog open; audited.
    QPushButton *release = nullptr;
    if (m_limits && m_limits->allows(TeamRole::Admin))
        release = box.addButton(tr("Release %1's claim and go on").arg(claim->holder),
                                QMessageBox::DestructiveRole);
    box.setDefaultButton(QMessageBox::Ok);
    box.exec();
    if (!release || box.clickedButton() != release)
        return false;
    const Expected<bool> released = claims.releaseAnyone(escalationId);
    if (!released) {
        emit message(tr("Could not release %1's claim: %2").arg(claim->holder, released.message()));
        return false;
    }
    emit claimsChanged();
    stateFact(escalationId,
              tr("You released %1's claim on escalation %2.").arg(claim->holder).arg(escalationId));
    return claimFor(resolver, escalationId);
}

void EscalationActions::catchUpClaims()
{
    const QString who = m_provider.operatorName();
    for (auto it = m_holds.cbegin(); it != m_holds.cend(); ++it)
        renewHold(who, it.key());
    const QSet<qint64> unreturned = std::exchange(m_unreturned, {});
    EscalationClaims claims(m_store, who);
    for (const qint64 escalationId : unreturned) {
        const Expected<bool> released = claims.release(escalationId);
        if (!released)
            m_unreturned.insert(escalationId);
        else if (*released)
            emit claimsChanged();
    }
}

QString EscalationActions::factOf(qint64 escalationId)
{
    const Expected<std::optional<EscalationDetail>> current = m_store.escalation(escalationId);
    if (!current || !*current)
        return QString();
    const EscalationDetail &now = **current;
    const bool held = claimHeld(now.claimedBy, now.claimedUntil, QDateTime::currentMSecsSinceEpoch());
    // Its holder, not the claim's end: a renewal keeps what the message said true.
    return QStringLiteral("%1|%2|%3|%4")
            .arg(held ? now.claimedBy : QString(), escalationStateId(now.state), now.resolvedBy)
            .arg(now.resolvedAt);
}

void EscalationActions::stateFact(qint64 escalationId, const QString &text)
{
    m_factEscalation = escalationId;
    m_fact = factOf(escalationId);
    emit message(text);
}

void EscalationActions::escalationsChanged()
{
    // A copy: showing where one stands may close nothing, but the list is not walked while it moves.
    const QList<ResolutionDialog *> open = m_dialogs;
    for (ResolutionDialog *dialog : open)
        dialog->escalationChangedElsewhere();
}

bool EscalationActions::statedFactHolds()
{
    return m_factEscalation == 0 || factOf(m_factEscalation) == m_fact;
}

bool EscalationActions::settledNow(qint64 escalationId)
{
    // A settled escalation holds no claim: its dialog has nothing to renew and nothing to say.
    const Expected<std::optional<EscalationDetail>> current = m_store.escalation(escalationId);
    return current && *current && (*current)->state != EscalationState::Open;
}

void EscalationActions::renewHold(const QString &who, qint64 escalationId)
{
    EscalationClaims claims(m_store, who);
    claims.setRenewal(renewEveryMs);
    const Expected<EscalationClaim> renewed = claims.renew(escalationId);
    if (!renewed)
        emit message(tr("Your claim on escalation %1 could not be renewed: %2")
                             .arg(escalationId)
                             .arg(renewed.message()));
    else if (!renewed->taken && !settledNow(escalationId))
        emit message(renewed->holder.isEmpty()
                             ? tr("Your claim on escalation %1 was released or lapsed: claim it again before "
                                  "acting on it.")
                                       .arg(escalationId)
                             : tr("Your claim on escalation %1 was released; %2 holds it now.")
                                       .arg(escalationId)
                                       .arg(renewed->holder));
}

template<typename Dialog>
void EscalationActions::followDatabase(Dialog *dialog)
{
    // An open dialog greys its actions while the team's database is away, and comes back with it.
    if (!m_limits)
        return;
    connect(m_limits, &RoleLimits::changed, dialog,
            [this, dialog] { dialog->setDatabaseAway(m_limits->unreachable()); });
}

void EscalationActions::holdWhileOpen(QWidget *dialog, qint64 escalationId)
{
    ++m_holds[escalationId];
    const QString who = m_provider.operatorName();
    // Renewed well before it lapses; a console that dies stops renewing, and the claim frees itself.
    auto *renew = new QTimer(dialog);
    renew->setInterval(int(renewEveryMs));
    connect(renew, &QTimer::timeout, this, [this, who, escalationId] { renewHold(who, escalationId); });
    renew->start();
    connect(dialog, &QObject::destroyed, this, [this, who, escalationId] {
        if (--m_holds[escalationId] > 0)
            return;
        m_holds.remove(escalationId);
        // Settling ended the claim already; otherwise the queue shows it free again.
        EscalationClaims claims(m_store, who);
        const Expected<bool> released = claims.release(escalationId);
        if (!released) {
            m_unreturned.insert(escalationId); // tried again once the database is back
            emit message(tr("Your claim on escalation %1 could not be given back yet: %2")
                                 .arg(escalationId)
                                 .arg(released.message()));
        } else if (*released)
            emit claimsChanged();
    });
}

ResolutionDialog *EscalationActions::performAgain(qint64 escalationId)
{
    ResolutionDialog *dialog = openResolution(escalationId);
    if (dialog)
        dialog->startPerformAgain();
    return dialog;
}

AttestDialog *EscalationActions::attest(qint64 escalationId)
{
    EscalationResolver *resolver =
            resolverFor(tr("%1: checks are recorded in a console that can write the ticket's database.")
                                .arg(readOnlyReason()),
                        tr("Set your name in Provider > Payment provider settings first: a check is recorded "
                           "under it."));
    if (!resolver)
        return nullptr;
    const Expected<EscalationDetail> detail = resolver->escalation(escalationId);
    if (!detail) {
        emit message(detail.message());
        return nullptr;
    }
    // Settled, a write takes a check only to say it was since performed where no system can be
    // asked (the dialog then asks for nothing else); a system's answer replaces any other check.
    if (detail->state != EscalationState::Open
        && (!standsOnACheck(*detail) || detail->resolution != Resolution::NotPerformed
            || resolver->route(*detail).canLookUp)) {
        emit message(tr("%1 %2 on %3 is settled (%4): look it up to replace a check, or read its evidence.")
                             .arg(detail->tool, detail->callExtId, detail->ticketExtId,
                                  settlementText(detail->resolution.value_or(Resolution::Performed),
                                                 detail->basis)));
        return nullptr;
    }
    if (!claimFor(*resolver, escalationId))
        return nullptr;
    auto *dialog = new AttestDialog(*detail, resolver->operatorName(), m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    holdWhileOpen(dialog, escalationId);
    followDatabase(dialog);
    connect(dialog, &AttestDialog::attestationChosen, this,
            [this, dialog, escalationId](const Attestation &attestation) {
                EscalationResolver *current = m_provider.resolver();
                if (!current)
                    return;
                const ResolutionReport report = current->attest(escalationId, attestation);
                dialog->showResult(report);
                if (report.kind == ResolutionReport::Kind::Resolved
                    || report.kind == ResolutionReport::Kind::ResolvedElsewhere) {
                    emit message(report.message);
                    emit settled();
                }
            });
    dialog->open();
    return dialog;
}

EvidenceDialog *EscalationActions::showEvidence(qint64 escalationId, const QString &evidenceSha256)
{
    const Expected<EscalationHistory> history = escalationHistory(m_store, escalationId);
    if (!history) {
        emit message(history.message());
        return nullptr;
    }
    auto *dialog = new EvidenceDialog(*history, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
    if (!evidenceSha256.isEmpty())
        dialog->showPiece(evidenceSha256);
    return dialog;
}

} // namespace verity
