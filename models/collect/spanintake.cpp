#include "spanintake.h"

#include "import/conversationevents.h"
#include "import/formats/otlptraces.h"
#include "import/nativeevent.h"
#include "import/transcriptformat.h"
#include "store/store.h"

#include <QDateTime>

namespace verity {

using nlohmann::json;

namespace {

constexpr qsizetype maxRememberedTraces = 100000;

} // namespace

SpanIntake::SpanIntake(ImportWrites &store, RegistrySelection registries, qint64 inFlightGraceMs,
                       std::function<qint64()> clock)
    : m_store(store)
    , m_importer(store, std::move(registries))
    , m_graceMs(inFlightGraceMs)
    , m_clock(std::move(clock))
{}

Expected<int> SpanIntake::escalateOverdue()
{
    return m_store.escalateOverdueCallsAlone(m_clock ? m_clock() : QDateTime::currentMSecsSinceEpoch());
}

IntakeResult SpanIntake::takeTraces(const json &request, qint64 receivedAt, const QString &source)
{
    if (m_traceConversations.size() > maxRememberedTraces)
        m_traceConversations.clear();
    // A trace this request names may have had spans before, stored under the trace alone: the
    // conversation takes that ticket over. Asked of the store once per trace (the first name
    // a trace gets is its name for good).
    QHash<QString, QString> named;
    collectTraceConversations(request, named);
    QHash<QString, QStringList> absorbs;
    for (auto it = named.cbegin(); it != named.cend(); ++it) {
        const QString known = m_traceConversations.value(it.key());
        if (!known.isEmpty() && !known.startsWith(QLatin1String("trace:")))
            continue;
        absorbs[it.value()].append(QStringLiteral("trace:") + it.key());
    }
    int spans = 0;
    ConversationContext context;
    context.traceConversations = &m_traceConversations;
    context.spansRead = &spans;
    context.toolSpansWithin = &m_toolSpansWithin;
    context.callAliases = &m_callAliases;
    context.toolHints = &m_toolHints;
    const QList<Expected<Conversation>> conversations = readOtlpTraces(request, context);
    // A span is exported when it ends: a tool span without a result never gets one, and is
    // unknown at once.
    m_importer.setInFlightGrace(std::nullopt, m_clock);
    // A write the model asked for in a chat span may have its own span still to come.
    m_importer.setCarriedGrace(m_graceMs);

    QList<ImportUnit> units;
    QHash<QString, int> spansOf;
    IntakeResult refusedUnread;
    for (const Expected<Conversation> &conversation : conversations) {
        if (!conversation) {
            refusedUnread.problems.append(conversation.message());
            continue;
        }
        // Spans no conversation named went to their trace's own ticket: the trace keeps it, so
        // the same spans sent again go there too, though a later batch named the conversation.
        if (conversation->id.startsWith(QLatin1String("trace:")))
            m_traceConversations.insert(conversation->id.mid(6), conversation->id);
        ImportUnit unit = conversationUnit(*conversation, formats::otlp, receivedAt, QString(),
                                           TicketDating::FileModified, TurnNaming::BySource);
        unit.absorbs = absorbs.value(conversation->id);
        spansOf.insert(conversation->id, conversation->spans);
        units.append(std::move(unit));
    }
    // A request may name a trace without a span of its own to store (the root span, exported
    // last): the trace's ticket still takes the conversation's name.
    for (auto it = absorbs.cbegin(); it != absorbs.cend(); ++it) {
        if (spansOf.contains(it.key()))
            continue;
        Conversation bare;
        bare.id = it.key();
        bare.subject = it.key();
        ImportUnit unit = conversationUnit(bare, formats::otlp, receivedAt, QString(),
                                           TicketDating::FileModified, TurnNaming::BySource);
        unit.absorbs = it.value();
        unit.absorbOnly = true;
        units.append(std::move(unit));
    }
    IntakeResult result = store(units, source, spans, spansOf);
    if (!result.storeError.isEmpty())
        return result;
    // Stored: those traces have their names for good.
    for (auto it = absorbs.cbegin(); it != absorbs.cend(); ++it) {
        for (const QString &traceTicket : it.value())
            m_traceConversations.insert(traceTicket.mid(6), it.key());
    }
    // Spans of conversations that could not be read: every span not stored with its
    // conversation, so the count holds however the reader grouped them.
    qint64 stored = 0;
    for (auto it = spansOf.cbegin(); it != spansOf.cend(); ++it)
        stored += it.value();
    result.refused = qMax<qint64>(0, spans - stored + result.refused);
    result.problems = refusedUnread.problems + result.problems;
    return result;
}

IntakeResult SpanIntake::takeEvents(const QByteArray &lines, const QString &source)
{
    QList<ImportUnit> units;
    qint64 lineNumber = 0;
    qint64 received = 0;
    for (const QByteArray &each : lines.split('\n')) {
        ++lineNumber;
        const QByteArray line = each.trimmed();
        if (line.isEmpty())
            continue;
        ++received;
        units.append(nativeUnit(line, lineNumber));
    }
    return storeEvents(units, source, received);
}

ImportUnit SpanIntake::nativeUnit(const QByteArray &line, qint64 lineNumber)
{
    ImportUnit unit;
    unit.place.line = lineNumber;
    unit.format = formats::native;
    Expected<NativeEvent> event = parseNativeEvent(line);
    if (event)
        unit.events.append(std::move(*event));
    else
        unit.rejection = event.message();
    return unit;
}

IntakeResult SpanIntake::storeEvents(const QList<ImportUnit> &units, const QString &source, qint64 received)
{
    // An event line reports a call as it is made; its result follows on a later line.
    m_importer.setInFlightGrace(m_graceMs, m_clock);
    m_importer.setCarriedGrace(std::nullopt);
    return store(units, source, received, {});
}

IntakeResult SpanIntake::takeLines(const QList<QByteArray> &lines, qint64 firstLine, const QString &source)
{
    IntakeResult total;
    QList<ImportUnit> events;
    qint64 eventLines = 0;
    const auto add = [&total](const IntakeResult &part, const QString &place) {
        total.received += part.received;
        total.refused += part.refused;
        for (const QString &problem : part.problems)
            total.problems.append(place.isEmpty() || problem.startsWith(QLatin1String("line "))
                                          ? problem
                                          : place + problem);
        for (const QString &notice : part.notices)
            total.notices.append(place + notice);
        total.eventsStored += part.eventsStored;
        total.eventsKnown += part.eventsKnown;
        total.ticketsOpened += part.ticketsOpened;
        if (total.storeError.isEmpty())
            total.storeError = part.storeError;
    };
    // Events are stored together; a trace export between them is stored after those before it.
    const auto flushEvents = [&] {
        if (!events.isEmpty())
            add(storeEvents(events, source, eventLines), QString());
        events.clear();
        eventLines = 0;
    };
    qint64 number = firstLine - 1;
    for (const QByteArray &each : lines) {
        ++number;
        const QByteArray line = each.trimmed();
        if (line.isEmpty())
            continue;
        json value;
        try {
            value = json::parse(line.constBegin(), line.constEnd());
        } catch (const json::exception &) {
            // The native parser names what is wrong with it.
        }
        if (!looksLikeOtlpTraces(value)) {
            ++eventLines;
            events.append(nativeUnit(line, number));
            continue;
        }
        flushEvents();
        add(takeTraces(value, m_clock ? m_clock() : QDateTime::currentMSecsSinceEpoch(), source),
            QStringLiteral("line %1: ").arg(number));
        if (!total.storeError.isEmpty())
            return total;
    }
    flushEvents();
    return total;
}

IntakeResult SpanIntake::store(const QList<ImportUnit> &units, const QString &source, qint64 received,
                               const QHash<QString, int> &spansOf)
{
    IntakeResult result;
    result.received = received;
    const ImportReport report = m_importer.importUnits(units, source);
    if (!report.fatal.isEmpty()) {
        result.storeError = report.fatal;
        return result;
    }
    result.eventsStored = report.eventsImported;
    result.eventsKnown = report.eventsUnchanged;
    result.ticketsOpened = report.ticketsOpened;
    for (const ImportProblem &notice : report.notices)
        result.notices.append(
                notice.conversation.isEmpty()
                        ? notice.reason
                        : QStringLiteral("conversation \"%1\": %2").arg(notice.conversation, notice.reason));
    for (const ImportProblem &problem : report.rejected) {
        const bool conversation = !problem.conversation.isEmpty();
        result.refused += conversation ? spansOf.value(problem.conversation) : 1;
        QString place;
        if (conversation)
            place = QStringLiteral("conversation \"%1\": ").arg(problem.conversation);
        else if (problem.place.line > 0)
            place = QStringLiteral("line %1: ").arg(problem.place.line);
        result.problems.append(place + problem.reason);
    }
    return result;
}

} // namespace verity
