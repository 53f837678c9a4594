#include "toolcallcard.h"

#include "accessibletext.h"
#include "domain/displaytext.h"
#include "domain/mcpcallresult.h"
#include "foldedtext.h"
#include "outcomebadge.h"
#include "outcomestyle.h"
#include "plaintextlabel.h"
#include "theme.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace verity {

namespace {

// What a repeat is, in words: the kind when the call repeats an earlier one, and the peers.
QString repeatText(const ToolCallRow &call)
{
    const QString peers = call.repeatedWith.join(QStringLiteral(", "));
    if (!call.repeatKind)
        return ToolCallCard::tr("Repeated intent: the same intent key as call %1.").arg(peers);
    // The guard kept it from the tool: the outcome above says why, in the words the model got.
    if (guardAnswerReason(call.rawResult)) {
        return (call.outcome == Outcome::AlreadyPerformed
                        ? ToolCallCard::tr("Answered by the guard, never sent: repeats call %1, which was "
                                           "performed. Same intent key as call %2.")
                        : ToolCallCard::tr("Held by the guard, never sent: repeats call %1. Same intent key "
                                           "as call %2."))
                .arg(call.repeatOfCallId, peers);
    }
    QString why;
    switch (*call.repeatKind) {
    case RepeatKind::Retry:
        why = ToolCallCard::tr("no earlier call with this key is known to have taken effect");
        break;
    case RepeatKind::DuplicateEffect:
        why = ToolCallCard::tr("an earlier call with this key took effect, and so did this one");
        break;
    case RepeatKind::Harmless:
        why = ToolCallCard::tr("it did not take effect a second time");
        break;
    case RepeatKind::Unsettled:
        why = ToolCallCard::tr("an earlier call took effect; whether this one did is unknown");
        break;
    }
    return ToolCallCard::tr("%1: repeats call %2 (%3). Same intent key as call %4.")
            .arg(repeatKindLabel(*call.repeatKind), call.repeatOfCallId, why, peers);
}

QLabel *caption(const QString &text, QWidget *parent)
{
    QLabel *label = plainTextLabel(text, parent, false);
    label->setStyleSheet(theme::label(theme::Text::Caption));
    return label;
}

QLabel *notice(const QString &text, const QString &objectName, const QString &style, QWidget *parent)
{
    QLabel *label = plainTextLabel(text, parent);
    label->setObjectName(objectName);
    label->setStyleSheet(style);
    return label;
}

// A database this user cannot write keeps every settling button, greyed, saying why: the
// operator sees what would be done here, and that it must be done in a console that can write.
void disableWhenReadOnly(QPushButton *button, const CallActions &actions)
{
    if (actions.readOnlyReason.isEmpty())
        return;
    button->setEnabled(false);
    button->setToolTip(QCoreApplication::translate("verity::ToolCallCard", "%1: nothing can be settled here")
                               .arg(actions.readOnlyReason));
}

QLabel *readStatus(const QString &text, QWidget *parent)
{
    QLabel *label = plainTextLabel(text, parent, false);
    label->setObjectName(QStringLiteral("readStatus"));
    label->setStyleSheet(theme::label(theme::Text::Muted));
    return label;
}

// An escalation someone took up stays open when a result comes after it (the tool's word
// then, not yet evidence): it is settled as any other, from the card.
bool lateResult(const ToolCallRow &call)
{
    return call.outcome != Outcome::Unknown && call.escalationId
            && call.escalationState == EscalationState::Open;
}

bool waitsForSettlement(const ToolCallRow &call)
{
    return (call.outcome == Outcome::Unknown && call.escalationState != EscalationState::Resolved)
            || lateResult(call);
}

// What an unsettled write waits for, and what the person may do about it.
QString waitingText(const ToolCallRow &call, const CallActions &actions)
{
    if (lateResult(call))
        return ToolCallCard::tr(
                       "Escalated, then the tool's result came: it reported %1. The escalation stays open "
                       "for whoever took it up: settle it by evidence%2.")
                .arg(call.outcome ? outcomeLabel(*call.outcome).toLower() : ToolCallCard::tr("nothing"),
                     actions.lookupSystem.isEmpty()
                             ? QString()
                             : ToolCallCard::tr(" (a lookup at %1)").arg(actions.lookupSystem));
    if (!call.escalationId && call.inFlightUntil && *call.inFlightUntil < QDateTime::currentMSecsSinceEpoch())
        // Only the receiver escalates it; while none runs on this database nothing does.
        return ToolCallCard::tr(
                       "Unknown: do not retry. Its result was due by %1 and has not come, but it is not "
                       "in the escalation queue yet: what recorded it (verity guard, verity collect or "
                       "import --follow) is not running to escalate it; starting it again does.")
                .arg(formatTime(*call.inFlightUntil));
    if (!call.escalationId && call.inFlightUntil) // reported live: its result may still come
        return ToolCallCard::tr(
                       "In flight: its result may still come until %1. Do not retry it; if none comes "
                       "by then, it is escalated as unknown.")
                .arg(formatTime(*call.inFlightUntil));
    if (!call.escalationId)
        return ToolCallCard::tr("Unknown: do not retry. A lookup must settle it.");
    return !actions.unreadable.isEmpty()
            ? ToolCallCard::tr(
                      "Unknown: do not retry. This write waits in the escalation queue; how it can be "
                      "settled cannot be read just now (%1).")
                      .arg(actions.unreadable)
            : actions.lookupSystem.isEmpty()
            ? ToolCallCard::tr("Unknown: do not retry. No system can be asked about this write: check it "
                               "where it went and record what you found.")
            : ToolCallCard::tr("Unknown: do not retry. This write waits in the escalation queue for a lookup "
                               "at %1.")
                      .arg(actions.lookupSystem);
}

// The settlement in words: what was found and on what basis, by whom, when, and its reference.
QString settledText(const ToolCallRow &call)
{
    QString text = ToolCallCard::tr("Settled: %1 by %2 at %3")
                           .arg(settlementText(*call.resolution, call.settlementBasis), call.resolvedBy,
                                formatTime(call.resolvedAt));
    if (!call.settledReference.isEmpty())
        // A check's reference is what the person typed (an id, or where they looked).
        text += call.toolClass == ToolClass::WriteMoney
                        && call.settlementBasis != SettlementBasis::Attestation
                ? ToolCallCard::tr("; refund %1").arg(call.settledReference)
                : ToolCallCard::tr("; reference %1").arg(call.settledReference);
    return text + u'.';
}

// What a person does about a write still owed, in the words of what this console can do.
QString owedText(const ToolCallRow &call, const CallActions &actions)
{
    const QString owed =
            ToolCallCard::tr("Still owed to the customer: it was not performed, and no other call "
                             "of its intent took effect.");
    if (actions.mayPerformAgain && actions.lookupFirst)
        return ToolCallCard::tr(
                       "%1 Only a person's check found it absent, so Perform with the same key asks %2 "
                       "first and sends it only if %2 has no record of it. Evidence… has what to tell "
                       "the customer meanwhile.")
                .arg(owed, actions.lookupSystem);
    if (actions.mayPerformAgain)
        return ToolCallCard::tr("%1 Perform it with the same key. Evidence… has what to tell the customer "
                                "meanwhile.")
                .arg(owed);
    if (actions.mayReplaceCheck)
        return ToolCallCard::tr(
                       "%1 No system can be asked about %2 from here: do it in the system it goes to, "
                       "with the same intent key (below), then record a check that it was performed. "
                       "Evidence… has what to tell the customer meanwhile.")
                .arg(owed, call.tool);
    if (!actions.repeatRefusal.isEmpty())
        return ToolCallCard::tr("%1 It cannot be sent again from here: %2.").arg(owed, actions.repeatRefusal);
    return owed;
}

QString settledBand(const ToolCallRow &call)
{
    if (call.settlementBasis == SettlementBasis::Attestation)
        return theme::band(theme::Band::Attested);
    return theme::band(*call.resolution == Resolution::NotPerformed ? theme::Band::NotPerformed
                                                                    : theme::Band::Performed);
}

} // namespace

// The card is built top to bottom, one section a step: the order of the steps is the order on
// screen, and of the keyboard's focus through the buttons.
ToolCallCard::ToolCallCard(const ToolCallRow &call, const CallActions &actions, QWidget *parent)
    : QFrame(parent)
    , m_callId(call.callExtId)
{
    setObjectName(QStringLiteral("toolCallCard_") + call.callExtId);
    setFrameShape(QFrame::StyledPanel);
    m_dangerous = (call.outcome == Outcome::Unknown && !call.resolution)
            || call.toolClass == ToolClass::Unclassified;
    setHighlighted(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(theme::cardMargins);
    layout->setSpacing(theme::cardSpacing);
    addHeader(call, layout);
    addOutcomeReason(call, layout);
    if (waitsForSettlement(call))
        addWaitingSection(call, actions, layout);
    if (call.resolution && call.escalationState == EscalationState::Resolved)
        addSettledSection(call, actions, layout);
    if (call.escalationId)
        addEvidenceButton(*call.escalationId, layout);
    addClassNotice(call, layout);
    if (!call.amountError.isEmpty())
        addAmountNotice(call, layout);
    if (call.repeated)
        addRepeatSection(call, layout);
    if (call.resultError) {
        layout->addWidget(notice(
                call.resultErrorType.isEmpty()
                        ? tr("The transcript marks this result an error.")
                        : tr("The transcript marks this result an error (%1).").arg(call.resultErrorType),
                QStringLiteral("resultErrorNotice"), theme::label(theme::Text::Warning), this));
    }
    addArgumentsAndResult(call);
    if (isWrite(call.toolClass))
        addIntentKey(call, layout);
}

void ToolCallCard::addHeader(const ToolCallRow &call, QVBoxLayout *layout)
{
    auto *header = new QHBoxLayout;
    // A long name ("modify_pending_order_items") may break after its underscores, and wraps
    // beside the outcome rather than running under it; it is read and named without the breaks.
    QString breakable = call.tool;
    breakable.replace(u'_', QStringLiteral("_\u200b"));
    auto *tool = plainTextLabel(breakable, this, false);
    tool->setObjectName(QStringLiteral("toolName"));
    tool->setAccessibleName(call.tool);
    tool->setToolTip(call.tool);
    tool->setStyleSheet(theme::label(theme::Text::ToolName));
    const bool inferred = !call.classInferred.isEmpty();
    auto *toolClass = plainTextLabel(inferred ? tr("%1 \u00b7 inferred").arg(toolClassLabel(call.toolClass))
                                              : toolClassLabel(call.toolClass),
                                     this, false);
    toolClass->setObjectName(QStringLiteral("toolClass"));
    toolClass->setWordWrap(false); // a short badge: "Write: money" on one line, as tall as its text
    toolClass->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    toolClass->setStyleSheet(theme::classBadge());
    // The class, the call and its time on a line of their own, under the tool: the header keeps
    // its room for the tool's name and the outcome, and nothing in it is cut on a narrow pane.
    auto *time =
            plainTextLabel(tr("call %1 · %2").arg(call.callExtId, formatTime(call.calledAt)), this, false);
    time->setObjectName(QStringLiteral("callTime"));
    time->setWordWrap(false);
    time->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    time->setToolTip(time->text());
    time->setStyleSheet(theme::label(theme::Text::Muted));
    // The name takes the room the badge leaves, so it wraps only when that room runs out (a
    // wrapping label left to its own size hint would break even a short name).
    header->addWidget(tool, 1);
    if (isWrite(call.toolClass))
        header->addWidget(makeBadge(call), 0, Qt::AlignVCenter);
    layout->addLayout(header);
    auto *line = new QHBoxLayout;
    line->addWidget(toolClass, 0, Qt::AlignVCenter);
    line->addWidget(time, 1);
    layout->addLayout(line);
}

OutcomeBadge *ToolCallCard::makeBadge(const ToolCallRow &call)
{
    // Once evidence settled an unknown, the badge shows what is now known; the line below
    // says the tool itself had reported unknown.
    const std::optional<Outcome> shown = knownOutcome(call);
    // A person's check never looks like the system's answer.
    const bool attested = call.resolution && call.settlementBasis == SettlementBasis::Attestation
            && !settlementContradicted(call);
    m_badge = new OutcomeBadge(shown, this);
    if (attested)
        m_badge->setAttested();
    else if (call.inFlightUntil && !call.escalationId
             && *call.inFlightUntil >= QDateTime::currentMSecsSinceEpoch())
        m_badge->setInFlight(formatTime(*call.inFlightUntil));
    m_badge->setObjectName(QStringLiteral("outcomeBadge"));
    return m_badge;
}

void ToolCallCard::addOutcomeReason(const ToolCallRow &call, QVBoxLayout *layout)
{
    if (!call.outcome || call.outcomeReason.isEmpty())
        return;
    const QString why = call.resolution
            ? tr("The tool reported %1: %2.").arg(outcomeLabel(*call.outcome).toLower(), call.outcomeReason)
            : tr("Why: %1").arg(call.outcomeReason);
    auto *reason = plainTextLabel(why, this);
    reason->setObjectName(QStringLiteral("outcomeReason"));
    reason->setStyleSheet(theme::label(theme::Text::Body));
    layout->addWidget(reason);
}

void ToolCallCard::addWaitingSection(const ToolCallRow &call, const CallActions &actions, QVBoxLayout *layout)
{
    auto *row = new QHBoxLayout;
    row->addWidget(notice(waitingText(call, actions), QStringLiteral("unknownNotice"),
                          theme::band(theme::Band::Unknown), this),
                   1);
    if (call.escalationId && actions.unreadable.isEmpty()) {
        if (!actions.lookupSystem.isEmpty())
            row->addWidget(
                    settleButton(tr("Look up…"), QStringLiteral("lookupButton"),
                                 tr("Ask %1 whether this write happened (Ctrl+K)").arg(actions.lookupSystem),
                                 &ToolCallCard::lookupRequested, *call.escalationId, actions));
        else
            row->addWidget(settleButton(tr("Record a check…"), QStringLiteral("attestButton"),
                                        tr("Record what you found in the system this write went to"),
                                        &ToolCallCard::attestRequested, *call.escalationId, actions));
    }
    layout->addLayout(row);
    if (!call.escalationNote.isEmpty())
        layout->addWidget(notice(tr("Why it is still open: %1").arg(call.escalationNote),
                                 QStringLiteral("lookupNote"), theme::label(theme::Text::Warning), this));
}

void ToolCallCard::addSettledSection(const ToolCallRow &call, const CallActions &actions, QVBoxLayout *layout)
{
    auto *row = new QHBoxLayout;
    row->addWidget(notice(settledText(call), QStringLiteral("resolutionNotice"), settledBand(call), this), 1);
    // A person's check stands until a system is asked: its answer replaces the check.
    if (call.settlementBasis == SettlementBasis::Attestation && !actions.lookupSystem.isEmpty()
        && call.escalationId)
        row->addWidget(
                settleButton(tr("Look up…"), QStringLiteral("lookupButton"),
                             tr("Ask %1 whether this write happened; its answer replaces the attested check")
                                     .arg(actions.lookupSystem),
                             &ToolCallCard::lookupRequested, *call.escalationId, actions));
    layout->addLayout(row);
    if (settlementContradicted(call))
        layout->addWidget(notice(tr("The tool's own answer, which came after, says it was %1: so it was, "
                                    "whatever this check found. Do not perform it again.")
                                         .arg(outcomeLabel(*call.outcome).toLower()),
                                 QStringLiteral("contradictedNotice"), theme::label(theme::Text::Warning),
                                 this));
    else if (actions.owed && call.escalationId)
        addOwedSection(call, actions, layout);
}

void ToolCallCard::addOwedSection(const ToolCallRow &call, const CallActions &actions, QVBoxLayout *layout)
{
    auto *row = new QHBoxLayout;
    row->addWidget(notice(owedText(call, actions), QStringLiteral("owedNotice"),
                          theme::label(theme::Text::Warning), this),
                   1);
    // The way back beside the words that say it: a repeat, or a check that it was done since.
    if (actions.mayPerformAgain)
        row->addWidget(settleButton(
                tr("Perform with the same key…"), QStringLiteral("performAgainButton"),
                actions.lookupFirst
                        ? tr("Asks %1 first, with the same intent key, whether it was made: if it was, it is "
                             "settled as performed and nothing is sent; only if %1 has no record of it is it "
                             "sent once more with that key, after you confirm")
                                  .arg(actions.lookupSystem)
                        : tr("Sends it once more with the same intent key, after you confirm what goes "
                             "where"),
                &ToolCallCard::performAgainRequested, *call.escalationId, actions));
    else if (actions.mayReplaceCheck)
        row->addWidget(settleButton(tr("Record a check…"), QStringLiteral("recheckButton"),
                                    tr("Once you have done it with the same intent key, record that it was "
                                       "performed: it replaces the check that found it not performed"),
                                    &ToolCallCard::attestRequested, *call.escalationId, actions));
    layout->addLayout(row);
}

QPushButton *ToolCallCard::settleButton(const QString &text, const QString &objectName,
                                        const QString &toolTip, void (ToolCallCard::*request)(qint64),
                                        qint64 escalationId, const CallActions &actions)
{
    auto *button = new QPushButton(text, this);
    button->setObjectName(objectName);
    if (!toolTip.isEmpty())
        button->setToolTip(toolTip);
    connect(button, &QPushButton::clicked, this,
            [this, request, escalationId] { emit(this->*request)(escalationId); });
    disableWhenReadOnly(button, actions);
    return button;
}

void ToolCallCard::addEvidenceButton(qint64 escalationId, QVBoxLayout *layout)
{
    auto *row = new QHBoxLayout;
    row->addStretch();
    auto *evidence = new QPushButton(tr("Evidence…"), this);
    evidence->setObjectName(QStringLiteral("evidenceButton"));
    evidence->setToolTip(tr("Every lookup, write and check of this call, and what to tell the customer"));
    connect(evidence, &QPushButton::clicked, this,
            [this, escalationId] { emit evidenceRequested(escalationId); });
    row->addWidget(evidence);
    layout->addLayout(row);
}

void ToolCallCard::addClassNotice(const ToolCallRow &call, QVBoxLayout *layout)
{
    if (call.toolClass == ToolClass::Unclassified) {
        layout->addWidget(
                notice(tr("Unclassified tool: the registry does not say whether %1 reads or writes, so "
                          "Verity treats it as a write it cannot judge.")
                               .arg(call.tool),
                       QStringLiteral("unclassifiedNotice"), theme::band(theme::Band::Unknown), this));
    } else if (!call.classInferred.isEmpty()) {
        // Judged as what its telemetry says until a person confirms: said, so nobody takes an
        // inferred read for a registry's.
        layout->addWidget(notice(tr("Class inferred: no registry knows %1, and %2. Confirm it (or choose "
                                    "another) under Tools \u203a Classify tools.")
                                         .arg(call.tool, call.classInferred),
                                 QStringLiteral("classInferredNotice"), theme::label(theme::Text::Warning),
                                 this));
        if (!isWrite(call.toolClass) && call.hasResult)
            layout->addWidget(readStatus(call.readFailed ? tr("Read failed.") : tr("Read succeeded."), this));
    } else if (!isWrite(call.toolClass) && call.hasResult) {
        layout->addWidget(readStatus(call.readFailed
                                             ? tr("Read failed: safe to retry (reads are at-least-once).")
                                             : tr("Read succeeded."),
                                     this));
    }
}

void ToolCallCard::addAmountNotice(const ToolCallRow &call, QVBoxLayout *layout)
{
    // No sum counts this call: if it took effect, the money it moved is known only at the
    // system it went to.
    const bool mayHaveMoved = knownOutcome(call) != Outcome::NotPerformed;
    layout->addWidget(
            notice(mayHaveMoved ? tr("Amount not counted: %1. No total in Verity includes this write; "
                                     "read what it moved where it went.")
                                          .arg(call.amountError)
                                : tr("Amount not counted: %1. The write was not performed, so no "
                                     "money moved.")
                                          .arg(call.amountError),
                   QStringLiteral("amountNotice"),
                   theme::band(mayHaveMoved ? theme::Band::Unknown : theme::Band::NotPerformed), this));
}

void ToolCallCard::addRepeatSection(const ToolCallRow &call, QVBoxLayout *layout)
{
    auto *repeat = new QHBoxLayout;
    // A duplicate in red, a harmless repeat in grey (nothing happened twice), a retry or an
    // unsettled repeat in the colour of what is not known.
    const QString style = call.repeatKind == RepeatKind::DuplicateEffect ? theme::band(theme::Band::Duplicate)
            : call.repeatKind == RepeatKind::Harmless                    ? theme::band(theme::Band::Harmless)
                                                                         : theme::band(theme::Band::Unknown);
    repeat->addWidget(notice(repeatText(call), QStringLiteral("repeatNotice"), style, this), 1);
    // One button per peer, stacked: a model that retried five times must not widen the card.
    auto *links = new QVBoxLayout;
    links->setSpacing(2);
    for (const QString &peer : call.repeatedWith) {
        const QString shown = peer.size() > 18 ? peer.left(17) + u'…' : peer;
        auto *go = new QPushButton(tr("Show call %1").arg(shown), this);
        go->setObjectName(QStringLiteral("showRepeat_") + peer);
        go->setToolTip(peer);
        connect(go, &QPushButton::clicked, this, [this, peer] { emit showCallRequested(peer); });
        links->addWidget(go);
    }
    links->addStretch();
    repeat->addLayout(links);
    layout->addLayout(repeat);
}

void ToolCallCard::addArgumentsAndResult(const ToolCallRow &call)
{
    // A clipped text is not JSON any more: shown as it came.
    addSection(tr("ARGUMENTS"),
               call.argumentsClippedBytes > 0 ? call.argumentsJson : prettyJson(call.argumentsJson),
               QStringLiteral("arguments"), true, call.argumentsClippedBytes, TextPlace::Part::Arguments);
    addSection(tr("RESULT"),
               !call.hasResult                       ? tr("(no result was recorded)")
                       : call.resultClippedBytes > 0 ? call.rawResult
                                                     : prettyJson(call.rawResult),
               QStringLiteral("rawResult"), true, call.resultClippedBytes, TextPlace::Part::Result);
}

void ToolCallCard::addIntentKey(const ToolCallRow &call, QVBoxLayout *layout)
{
    if (call.intentKey.isEmpty()) {
        addSection(tr("INTENT KEY"), tr("none: %1").arg(call.intentError), QStringLiteral("intentKey"), true);
        return;
    }
    // 64 hex digits do not wrap: in a line of its own that scrolls, the whole key is still
    // there to select and copy, and a narrow card is not pushed wider.
    const bool fromArguments = !call.intentError.isEmpty();
    layout->addWidget(
            caption(fromArguments ? tr("INTENT KEY \u00b7 KEY FROM ALL ARGUMENTS") : tr("INTENT KEY"), this));
    auto *key = new QLineEdit(call.intentKey, this);
    key->setObjectName(QStringLiteral("intentKey"));
    describeForScreenReaders(
            key, tr("Intent key"),
            tr("The key every call of this intent shares; a repeat with it is the same write"));
    key->setReadOnly(true);
    key->setFrame(false);
    key->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    key->setToolTip(call.intentKey);
    key->setCursorPosition(0);
    key->setStyleSheet(theme::codeField());
    layout->addWidget(key);
    if (!fromArguments)
        return;
    // Said, so that a person knows a retry with other words would not be caught.
    layout->addWidget(
            notice(!call.classInferred.isEmpty()
                           ? tr("Key from all arguments, since %1 to name the fields of one intent. An "
                                "identical call is a repeat of this one.")
                                     .arg(call.intentError)
                           : tr("Key from all arguments, since the profile's fields could not make one "
                                "(%1). An identical call is a repeat of this one.")
                                     .arg(call.intentError),
                   QStringLiteral("intentKeyBasis"), theme::label(theme::Text::Muted), this));
}

void ToolCallCard::addSection(const QString &title, const QString &text, const QString &objectName,
                              bool monospace, qint64 wholeBytes, TextPlace::Part part)
{
    layout()->addWidget(caption(title, this));
    QLabel *body = nullptr;
    if (wholeBytes > 0 || FoldedText::isLong(text)) {
        auto *folded = new FoldedText(text, wholeBytes, true, monospace, this);
        connect(folded, &FoldedText::showAllRequested, this, [this, part] { emit showAllRequested(part); });
        layout()->addWidget(folded);
        body = folded->body();
    } else {
        body = plainTextLabel(text, this);
        if (monospace)
            body->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        layout()->addWidget(body);
    }
    body->setObjectName(objectName);
    body->setStyleSheet(theme::codeBlock());
}

void ToolCallCard::setHighlighted(bool highlighted)
{
    m_highlighted = highlighted;
    setStyleSheet(theme::callCard(QStringLiteral("verity--ToolCallCard"), highlighted, m_dangerous));
}

} // namespace verity
