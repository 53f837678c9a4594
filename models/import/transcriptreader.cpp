#include "transcriptreader.h"

#include "conversationevents.h"
#include "domain/jsontext.h"
#include "domain/sha256.h"
#include "domain/timestamp.h"
#include "formats/otlptraces.h"
#include "jsonstream.h"
#include "transcriptformat.h"

#include <QFileInfo>
#include <QTemporaryFile>

#include <algorithm>

namespace verity {

using nlohmann::json;

namespace {

constexpr qint64 headSize = 64 * 1024;

QByteArray withoutBom(QByteArray bytes)
{
    if (bytes.startsWith("\xEF\xBB\xBF"))
        bytes.remove(0, 3);
    return bytes;
}

// The first bytes of a file, quoted in a message: control characters are spelled out (\x1B),
// so a binary file or a terminal escape never reaches the screen or a terminal as itself.
QString excerpt(const QByteArray &bytes)
{
    const QString text = QString::fromUtf8(bytes.left(40)).simplified();
    QString shown;
    for (const QChar c : text) {
        if (c.category() == QChar::Other_Control || c.category() == QChar::Other_Format)
            shown += QStringLiteral("\\x")
                    + QString::number(c.unicode(), 16).toUpper().rightJustified(2, u'0');
        else
            shown += c;
    }
    return bytes.size() > 40 ? shown + u'…' : shown;
}

ImportUnit rejectedUnit(const FilePlace &place, const QString &format, const QString &reason)
{
    ImportUnit unit;
    unit.place = place;
    unit.format = format;
    unit.rejection = reason;
    return unit;
}

bool acceptsJson(const QByteArray &text)
{
    return jsonNestingDepth(text.constBegin(), text.constEnd()) <= maxJsonNesting
            && json::accept(text.constBegin(), text.constEnd());
}

// Where the first JSON value of the file ends (the offset after it), reading from `start`; -1
// when it never ends. Brackets outside strings are counted, nothing is built.
qint64 endOfFirstValue(const QString &path, qint64 start)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || !file.seek(start))
        return -1;
    JsonBracketScanner scanner;
    qint64 offset = start;
    while (!file.atEnd()) {
        const QByteArray chunk = file.read(1 << 20);
        for (const char c : chunk) {
            ++offset;
            const bool closes = c == '}' || c == ']';
            if (scanner.feed(c) == 0 && closes)
                return offset;
        }
    }
    return -1;
}

bool onlySpaceFrom(const QString &path, qint64 offset)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || !file.seek(offset))
        return true;
    const QByteArray next = file.read(4096);
    return next.trimmed().isEmpty() && file.atEnd();
}

// A τ² file says which domain it ran ("tau-airline" from info.environment_info.domain_name):
// that, not the tools a conversation happens to share with another domain, decides a tie
// between profiles. Empty when the document names none.
QString declaredProfileOf(const json &document)
{
    if (!document.is_object() || !document.contains("info") || !document.at("info").is_object())
        return {};
    const json &info = document.at("info");
    const json::json_pointer where("/environment_info/domain_name");
    const json domain = info.contains(where) ? info.at(where) : json();
    if (!domain.is_string() || domain.get<std::string>().empty())
        return {};
    return QStringLiteral("tau-") + fromUtf8String(domain.get<std::string>());
}

// The agent's model a τ² file names for all its simulations: info.agent_info.llm.
QString declaredModelOf(const json &document)
{
    const json::json_pointer where("/info/agent_info/llm");
    if (!document.is_object() || !document.contains(where))
        return {};
    const json &model = document.at(where);
    return model.is_string() ? fromUtf8String(model.get<std::string>()).simplified().left(80) : QString();
}

// The lines of a file as QFile::readLine() gives them (each with its newline), read a large
// block at a time: a line is a view into the block, valid until the next one is asked for.
// A line longer than maxLineBytes is not held: it is passed over to its newline, its bytes
// given to `passed` (the file's hash), and handed out empty with its length in skipped().
class LineBlocks
{
public:
    LineBlocks(QFile &file, Sha256Stream &passed)
        : m_file(file)
        , m_passed(passed)
        , m_blockStart(file.pos())
    {}

    bool next(QByteArray &line, qint64 &lineStart)
    {
        m_skipped = 0;
        for (;;) {
            const qsizetype newline = m_block.indexOf('\n', m_from);
            const bool whole = newline >= 0;
            if (whole || (m_atEnd && m_from < m_block.size())) {
                const qsizetype end = whole ? newline + 1 : m_block.size();
                line = QByteArray::fromRawData(m_block.constData() + m_from, end - m_from);
                lineStart = m_blockStart + m_from;
                m_from = end;
                return true;
            }
            if (m_atEnd)
                return false;
            // The start of a line the block cuts: kept, with the next block after it.
            m_block.remove(0, m_from);
            m_blockStart += m_from;
            m_from = 0;
            if (m_block.size() > maxLineBytes) {
                lineStart = m_blockStart;
                passOverLongLine();
                line = QByteArray();
                return true;
            }
            const QByteArray more = m_file.read(1 << 20);
            if (more.isEmpty())
                m_atEnd = true; // the end, or an error the caller asks the file about
            m_block += more;
        }
    }

    qint64 skipped() const { return m_skipped; } // the length of the line just handed out empty

private:
    void passOverLongLine()
    {
        m_passed.add(m_block);
        m_skipped = m_block.size();
        m_block.clear();
        for (;;) {
            QByteArray more = m_file.read(1 << 20);
            if (more.isEmpty()) {
                m_atEnd = true;
                break;
            }
            const qsizetype newline = more.indexOf('\n');
            if (newline < 0) {
                m_passed.add(more);
                m_skipped += more.size();
                continue;
            }
            m_passed.add(more.left(newline + 1));
            m_skipped += newline + 1;
            m_block = more.mid(newline + 1);
            break;
        }
        m_blockStart += m_skipped;
    }

    QFile &m_file;
    Sha256Stream &m_passed;
    QByteArray m_block;
    qint64 m_blockStart = 0; // the file offset of m_block's first byte
    qsizetype m_from = 0; // where the next line begins in m_block
    qint64 m_skipped = 0;
    bool m_atEnd = false;
};

// As line.trimmed().isEmpty(), without making the trimmed copy.
bool isBlank(const QByteArray &line)
{
    return std::all_of(line.cbegin(), line.cend(), [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
    });
}

// A list whose first element is a message or a Responses item is one conversation, read whole.
bool isConversationPart(const json &element)
{
    if (!element.is_object())
        return false;
    if (element.contains("role"))
        return true;
    auto type = element.find("type");
    if (type == element.end() || !type->is_string())
        return false;
    const std::string &name = type->get_ref<const std::string &>();
    return name == "message" || name == "function_call" || name == "function_call_output"
            || name == "reasoning";
}

} // namespace

TranscriptReader::TranscriptReader(QString path)
    : m_path(std::move(path))
    , m_source(m_path)
{}

TranscriptReader::~TranscriptReader() = default;

// A pipe or FIFO (`verity import <(zcat …)`) can be read once only, and a transcript is read
// more than once (its layout, an OpenTelemetry file's traces, then its units): what comes
// through is kept in a temporary file, removed when reading ends, and read from there.
Expected<void> TranscriptReader::spool(QFile &pipe)
{
    m_spool = std::make_unique<QTemporaryFile>();
    if (!m_spool->open())
        return makeError(QStringLiteral("cannot keep what the pipe sends in a temporary file: %1")
                                 .arg(m_spool->errorString()));
    QByteArray chunk;
    while (!(chunk = pipe.read(1 << 20)).isEmpty()) {
        if (m_spool->write(chunk) != chunk.size())
            return makeError(QStringLiteral("cannot keep what the pipe sends in a temporary file: %1")
                                     .arg(m_spool->errorString()));
    }
    if (pipe.error() != QFileDevice::NoError)
        return makeError(QStringLiteral("cannot read the pipe: %1").arg(pipe.errorString()));
    if (!m_spool->flush())
        return makeError(QStringLiteral("cannot keep what the pipe sends in a temporary file: %1")
                                 .arg(m_spool->errorString()));
    m_source = m_spool->fileName();
    return {};
}

namespace {

// The tickets a unit adds to: none when it is rejected.
QStringList ticketsOf(const ImportUnit &unit)
{
    if (!unit.rejection.isEmpty())
        return {};
    if (!unit.conversation.isEmpty())
        return {unit.conversation};
    QStringList tickets;
    for (const NativeEvent &event : unit.events)
        tickets.append(event.ticket);
    return tickets;
}

} // namespace

// Reads the file once without handing anything on, to learn where each ticket's last unit is.
void TranscriptReader::scout(QFile &file, Layout layout, const QByteArray &head)
{
    m_scouting = true;
    file.seek(0);
    (void)(layout == Layout::Lines ? readLines(file, {})
                                   : readDocument(file, head, {})); // errors: the real pass says
    m_scouting = false;
    file.seek(0);
    m_format.clear();
    m_bytesRead = 0;
    m_linesRead = 0;
    m_sha256.clear();
    m_ordinal = 0;
    m_fileTimestamp.clear();
    m_declaredProfile.clear();
    m_declaredModel.clear();
    m_unitOrdinal = 0;
    m_openUntil = 0;
}

void TranscriptReader::settle(ImportUnit &unit)
{
    ++m_unitOrdinal;
    for (const QString &ticket : ticketsOf(unit)) {
        const size_t key = qHash(ticket);
        if (m_scouting)
            m_lastUnitOf.insert(key, m_unitOrdinal);
        else
            m_openUntil = qMax(m_openUntil, m_lastUnitOf.value(key, m_unitOrdinal));
    }
    unit.settled = m_unitOrdinal >= m_openUntil;
}

bool TranscriptReader::handOn(const Sink &sink, ImportUnit unit)
{
    settle(unit);
    if (m_scouting)
        return true;
    if (m_format.isEmpty() && !unit.format.isEmpty())
        m_format = unit.format;
    unit.declaredProfile = m_declaredProfile;
    if (!m_declaredModel.isEmpty() && !unit.events.isEmpty()) {
        if (auto *opened = std::get_if<TicketOpenedEvent>(&unit.events.first().body);
            opened && opened->ticket.origin.isEmpty())
            opened->ticket.origin = m_declaredModel;
    }
    return sink(std::move(unit));
}

bool TranscriptReader::handOnValue(const Sink &sink, const json &value, const FilePlace &place)
{
    if (m_declaredProfile.isEmpty()) {
        m_declaredProfile = declaredProfileOf(value); // a τ² document on one line
        m_declaredModel = declaredModelOf(value);
    }
    ConversationContext context{m_stem, m_ordinal, m_fileTimestamp};
    if (m_otlp) {
        context.traceConversations = &m_traceConversations;
        context.toolSpansWithin = &m_toolSpansWithin;
        context.callAliases = &m_callAliases;
        context.toolHints = &m_toolHints;
    }
    // Ids of conversations that carry none come from their content: the same conversation
    // keeps its ticket in any file, two different ones never share one.
    context.contentHash = QString::fromLatin1(
            sha256Hex(QByteArray::fromStdString(value.dump(-1, ' ', false, json::error_handler_t::replace)))
                    .left(12));
    const QList<ReadConversation> conversations = conversationsIn(value, context);
    m_ordinal = context.ordinal;
    m_fileTimestamp = context.fileTimestamp;
    for (const ReadConversation &read : conversations) {
        ImportUnit unit;
        if (!read.conversation) {
            unit = rejectedUnit(place, read.format, read.conversation.message());
        } else {
            const std::optional<qint64> fileDate = parseLooseTimestamp(m_fileTimestamp);
            unit = conversationUnit(*read.conversation, read.format, fileDate.value_or(m_fallbackAt),
                                    read.format == formats::otlp ? QString() : context.contentHash,
                                    fileDate ? TicketDating::FileDate : TicketDating::FileModified);
            unit.place = place;
        }
        if (!handOn(sink, std::move(unit)))
            return false;
    }
    return true;
}

Expected<void> TranscriptReader::read(const Sink &sink)
{
    QFile file(m_path);
    if (!file.open(QIODevice::ReadOnly))
        return makeError(QStringLiteral("cannot read the file: %1").arg(file.errorString()));
    if (file.isSequential()) {
        if (Expected<void> kept = spool(file); !kept)
            return kept;
        file.close();
        file.setFileName(m_source);
        if (!file.open(QIODevice::ReadOnly))
            return makeError(QStringLiteral("cannot read what the pipe sent: %1").arg(file.errorString()));
    }
    const QFileInfo info(m_path);
    m_stem = info.completeBaseName();
    m_fallbackAt = info.lastModified().toMSecsSinceEpoch();
    m_bytesTotal = file.size();

    const QByteArray head = withoutBom(file.peek(headSize));
    const qsizetype start = [&] {
        for (qsizetype i = 0; i < head.size(); ++i) {
            if (!QChar::isSpace(uchar(head.at(i))))
                return i;
        }
        return head.size();
    }();
    if (start == head.size() && file.size() <= headSize)
        return makeError(
                file.size() == 0
                        ? QStringLiteral("the file is empty: there is nothing to import")
                        : QStringLiteral("the file holds only blank lines: there is nothing to import"));
    const char first = start < head.size() ? head.at(start) : ' ';
    if (first != '{' && first != '[')
        return makeError(
                QStringLiteral("not a transcript format Verity reads: expected JSON or JSON Lines (Verity "
                               "events, OpenAI, Anthropic, OpenTelemetry traces, τ-bench), but the file "
                               "begins with \"%1\"")
                        .arg(excerpt(head.mid(start))));

    const qint64 bom = file.peek(3) == QByteArrayLiteral("\xEF\xBB\xBF") ? 3 : 0;
    const Layout layout = layoutOf(file, head, start, bom);
    m_lines = layout == Layout::Lines;
    gatherTraces(file, layout, head);
    scout(file, layout, head.mid(start));
    if (layout == Layout::Lines)
        return readLines(file, sink);
    return readDocument(file, head.mid(start), sink);
}

TranscriptReader::Layout TranscriptReader::layoutOf(QFile &file, const QByteArray &head, qsizetype start,
                                                    qint64 bom) const
{
    // JSON Lines when the first line is a whole JSON value on its own.
    const qsizetype lineEnd = head.indexOf('\n', start);
    if (lineEnd >= 0 || file.size() <= headSize) {
        const QByteArray firstLine = head.mid(start, lineEnd < 0 ? -1 : lineEnd - start);
        if (acceptsJson(firstLine))
            return Layout::Lines;
        // A broken first line in a JSON Lines file: another line, at the margin, is an object
        // of its own (a pretty-printed document indents its inner objects).
        qsizetype from = lineEnd + 1;
        for (int checked = 0; lineEnd >= 0 && checked < 8 && from < head.size(); ++checked) {
            const qsizetype end = head.indexOf('\n', from);
            if (end < 0)
                break;
            const QByteArray line = head.mid(from, end - from);
            if (line.startsWith('{') && acceptsJson(line))
                return Layout::Lines;
            from = end + 1;
        }
        return Layout::Document;
    }
    // A first line longer than the head: one minified document, or JSON Lines with long lines.
    const qint64 end = endOfFirstValue(m_source, bom + start);
    if (end < 0 || onlySpaceFrom(m_source, end))
        return Layout::Document;
    return Layout::Lines;
}

// OTLP: a collector may export a trace's child spans in a batch before the root span that
// names its conversation, so the whole file is read once for that map before it is imported.
void TranscriptReader::gatherTraces(QFile &file, Layout layout, const QByteArray &head)
{
    file.seek(0);
    if (layout == Layout::Lines) {
        QByteArray line;
        do {
            line = file.readLine().trimmed();
        } while (line.isEmpty() && !file.atEnd());
        line = withoutBom(line);
        if (!acceptsJson(line)
            || !looksLikeOtlpTraces(json::parse(line.constBegin(), line.constEnd(), nullptr, false)))
            return;
        m_otlp = true;
        file.seek(0);
        while (!file.atEnd()) {
            line = file.readLine();
            if (!acceptsJson(line))
                continue;
            const json request = json::parse(line.constBegin(), line.constEnd(), nullptr, false);
            collectTraceConversations(request, m_traceConversations);
            collectToolHints(request, m_toolHints);
        }
        return;
    }
    const JsonShape shape = sniffJsonShape(head);
    if (!shape.isObject || !shape.keys.contains(QStringLiteral("resourceSpans")))
        return;
    m_otlp = true;
    JsonElementStream stream(file, {QStringLiteral("resourceSpans")});
    (void)stream.run([this](json element, qint64) {
        const json request{{"resourceSpans", json::array({std::move(element)})}};
        collectTraceConversations(request, m_traceConversations);
        collectToolHints(request, m_toolHints);
        return true;
    }); // a broken document is reported by the pass that imports it
}

Expected<void> TranscriptReader::readLines(QFile &file, const Sink &sink)
{
    Sha256Stream hash;
    bool nativeFile = false; // once a line is a native event, a broken line is read as one too
    LineBlocks lines(file, hash);
    QByteArray line;
    qint64 lineStart = 0;
    while (lines.next(line, lineStart)) {
        hash.add(line);
        ++m_linesRead;
        m_bytesRead = lineStart + line.size() + lines.skipped();
        if (lines.skipped() > 0) {
            // Parsed, a line this long would take gigabytes; no conversation is this long.
            const QString reason = QStringLiteral("the line is %1 MB long; a line may be at most %2 MB")
                                           .arg(double(lines.skipped()) / (1 << 20), 0, 'f', 1)
                                           .arg(maxLineBytes >> 20);
            if (!handOn(sink, rejectedUnit(FilePlace{m_linesRead, lineStart}, m_format, reason)))
                break;
            continue;
        }
        if (m_linesRead == 1)
            line = withoutBom(line);
        if (isBlank(line))
            continue;
        const FilePlace place{m_linesRead, lineStart};
        if (jsonNestingDepth(line.constBegin(), line.constEnd()) > maxJsonNesting) {
            if (!handOn(sink, rejectedUnit(place, m_format, tooDeepReason())))
                break;
            continue;
        }
        json value;
        std::optional<QString> parseError;
        try {
            value = json::parse(line.constBegin(), line.constEnd());
        } catch (const json::parse_error &e) {
            parseError = jsonLineError(e, line);
        } catch (const json::exception &e) {
            parseError = QStringLiteral("not valid JSON: %1").arg(jsonParseErrorReason(e.what()));
        }
        if (!parseError && looksLikeNativeEvent(value))
            nativeFile = true;
        if (nativeFile && m_scouting) {
            // Only which ticket the line adds to matters here, not whether the rest is sound.
            ImportUnit unit;
            if (!parseError && value.contains("ticket") && value.at("ticket").is_string()) {
                unit.events.append(NativeEvent{});
                unit.events.last().ticket = fromUtf8String(value.at("ticket").get_ref<const std::string &>());
            }
            settle(unit);
            continue;
        }
        if (nativeFile) {
            // Verity's own events, one a line: the native parser names the field that is wrong.
            // A line parsed above is not parsed again.
            QString opening; // the ticket a ticket_opened line names, should the line be refused
            if (!parseError && value.is_object() && value.value("type", json()) == "ticket_opened") {
                if (const auto named = value.find("ticket"); named != value.end() && named->is_string())
                    opening = fromUtf8String(named->get_ref<const std::string &>());
            }
            Expected<NativeEvent> event =
                    parseError ? parseNativeEvent(line) : parseNativeEventValue(std::move(value));
            ImportUnit unit;
            unit.place = place;
            unit.format = formats::native;
            if (event) {
                unit.events.append(std::move(*event));
            } else {
                unit.rejection = event.message();
                unit.refusedOpening = opening;
            }
            if (!handOn(sink, std::move(unit)))
                break;
            continue;
        }
        if (parseError) {
            if (!handOn(sink, rejectedUnit(place, m_format, *parseError)))
                break;
            continue;
        }
        if (!handOnValue(sink, value, place))
            break;
    }
    if (file.error() != QFileDevice::NoError)
        return makeError(
                QStringLiteral("reading stopped at line %1: %2").arg(m_linesRead).arg(file.errorString()));
    m_sha256 = QString::fromLatin1(hash.hexDigest());
    return {};
}

Expected<void> TranscriptReader::readDocument(QFile &file, const QByteArray &head, const Sink &sink)
{
    // A top-level object streams the conversations of its "simulations" (τ²) or the batches of
    // its "resourceSpans" (OTLP), wherever they sit; a list streams its elements unless it is
    // one conversation's messages or items. Anything else is one conversation, read whole.
    const JsonShape shape = sniffJsonShape(head);
    Sha256Stream hash;
    const QStringList members = shape.isObject
            ? QStringList{QStringLiteral("simulations"), QStringLiteral("resourceSpans")}
            : QStringList();
    JsonElementStream stream(file, members);
    stream.keepInHeader({QStringLiteral("info")}); // τ²: the domain the file ran
    stream.setHash(&hash);
    bool wholeConversation = false;
    bool first = true;
    Expected<void> done = stream.run([&](json element, qint64 offset) {
        m_bytesRead = file.pos(); // read ahead by at most one buffer: fine for progress
        if (first && shape.isArray && isConversationPart(element)) {
            wholeConversation = true; // a list of messages: stop, and read it whole below
            return false;
        }
        first = false;
        if (const json &stamp = stream.header();
            stamp.contains("timestamp") && stamp.at("timestamp").is_string())
            m_fileTimestamp = fromUtf8String(stamp.at("timestamp").get<std::string>());
        if (m_declaredProfile.isEmpty()) {
            m_declaredProfile = declaredProfileOf(stream.header());
            m_declaredModel = declaredModelOf(stream.header());
        }
        const FilePlace place{0, offset};
        if (stream.member() == QLatin1String("resourceSpans"))
            return handOnValue(sink, json{{"resourceSpans", json::array({std::move(element)})}}, place);
        if (stream.member() == QLatin1String("simulations") && !element.is_object()) {
            return handOn(
                    sink,
                    rejectedUnit(place, formats::tau2,
                                 QStringLiteral("expected a simulation object in \"simulations\", got %1")
                                         .arg(QString::fromLatin1(element.type_name()))));
        }
        return handOnValue(sink, element, place);
    });
    m_bytesRead = stream.bytesRead();
    if (wholeConversation || (done && shape.isObject && stream.member().isEmpty()))
        return readWholeDocument(file, sink); // one conversation: read it again, whole
    if (!done)
        return done;
    m_sha256 = QString::fromLatin1(hash.hexDigest());
    return {};
}

Expected<void> TranscriptReader::readWholeDocument(QFile &file, const Sink &sink)
{
    file.seek(0);
    const QByteArray bytes = file.readAll();
    Sha256Stream hash;
    hash.add(bytes);
    m_bytesRead = file.pos();
    m_sha256 = QString::fromLatin1(hash.hexDigest());
    if (jsonNestingDepth(bytes.constBegin(), bytes.constEnd()) > maxJsonNesting)
        return makeError(tooDeepReason());
    json value;
    try {
        value = json::parse(withoutBom(bytes));
    } catch (const json::parse_error &e) {
        return makeError(QStringLiteral("byte %1: not valid JSON: %2")
                                 .arg(e.byte)
                                 .arg(jsonParseErrorReason(e.what())));
    } catch (const json::exception &e) {
        return makeError(QStringLiteral("not valid JSON: %1").arg(jsonParseErrorReason(e.what())));
    }
    handOnValue(sink, value, FilePlace{0, 0});
    return {};
}

} // namespace verity
