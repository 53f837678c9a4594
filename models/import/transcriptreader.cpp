#include "transcriptreader.h"

#include "conversationevents.h"
#include "jsonstream.h"
#include "transcriptformat.h"

#include "domain/jsontext.h"
#include "domain/sha256.h"

#include <QFile>
#include <QFileInfo>

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

QString excerpt(const QByteArray &bytes)
{
    QString text = QString::fromUtf8(bytes.left(40)).simplified();
    return bytes.size() > 40 ? text + u'…' : text;
}

ImportUnit rejectedUnit(const FilePlace &place, const QString &format, const QString &reason)
{
    ImportUnit unit;
    unit.place = place;
    unit.format = format;
    unit.rejection = reason;
    return unit;
}

} // namespace

TranscriptReader::TranscriptReader(QString path) : m_path(std::move(path)) {}

bool TranscriptReader::handOn(const Sink &sink, ImportUnit unit)
{
    if (m_format.isEmpty() && !unit.format.isEmpty())
        m_format = unit.format;
    if (m_progress)
        m_progress(m_bytesRead, m_bytesTotal);
    if (!sink(std::move(unit))) {
        m_stopped = true;
        return false;
    }
    return true;
}

bool TranscriptReader::handOnValue(const Sink &sink, const json &value, const FilePlace &place)
{
    ConversationContext context{m_stem, m_ordinal, m_fileTimestamp};
    const QList<ReadConversation> conversations = conversationsIn(value, context);
    m_ordinal = context.ordinal;
    m_fileTimestamp = context.fileTimestamp;
    for (const ReadConversation &read : conversations) {
        ImportUnit unit;
        if (!read.conversation) {
            unit = rejectedUnit(place, read.format, read.conversation.message());
        } else {
            const qint64 fallback = parseLooseTimestamp(m_fileTimestamp).value_or(m_fallbackAt);
            unit = conversationUnit(*read.conversation, read.format, fallback);
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
    const QFileInfo info(m_path);
    m_stem = info.completeBaseName();
    m_fallbackAt = info.lastModified().toMSecsSinceEpoch();
    m_bytesTotal = file.size();

    QByteArray head = withoutBom(file.peek(headSize));
    const qsizetype start = [&] {
        for (qsizetype i = 0; i < head.size(); ++i) {
            if (!QChar::isSpace(uchar(head.at(i))))
                return i;
        }
        return head.size();
    }();
    if (start == head.size() && file.size() <= headSize)
        return {}; // empty, or only blank lines: nothing to import
    const char first = start < head.size() ? head.at(start) : ' ';
    if (first != '{' && first != '[')
        return makeError(QStringLiteral("not a transcript format Verity reads: expected JSON or JSON Lines (Verity "
                                        "events, OpenAI, Anthropic, OpenTelemetry traces, τ-bench), but the file "
                                        "begins with \"%1\"")
                             .arg(excerpt(head.mid(start))));

    // JSON Lines when the first line is a whole JSON value on its own; a document otherwise. A
    // first line longer than the head is streamed as a document (a minified results file), and
    // read as lines after all if it holds no conversation list.
    const qsizetype lineEnd = head.indexOf('\n', start);
    const bool longFirstLine = lineEnd < 0 && file.size() > headSize;
    if (!longFirstLine) {
        const QByteArray firstLine = head.mid(start, lineEnd < 0 ? -1 : lineEnd - start);
        if (json::accept(firstLine.constBegin(), firstLine.constEnd())) {
            return readLines(file, sink);
        }
    }
    return readDocument(file, head.mid(start), sink, longFirstLine);
}

Expected<void> TranscriptReader::readLines(QFile &file, const Sink &sink)
{
    Sha256Stream hash;
    std::optional<bool> native; // told by the first line that is not blank
    while (!file.atEnd()) {
        const qint64 lineStart = file.pos();
        QByteArray line = file.readLine();
        hash.add(line);
        ++m_linesRead;
        m_bytesRead = file.pos();
        if (m_linesRead == 1)
            line = withoutBom(line);
        if (line.trimmed().isEmpty())
            continue;
        const FilePlace place{m_linesRead, lineStart};
        if (!native) {
            native = jsonNestingDepth(line.constBegin(), line.constEnd()) <= maxJsonNesting
                    && looksLikeNativeEvent(json::parse(line.constBegin(), line.constEnd(), nullptr, false));
            if (*native)
                m_format = formats::native;
        }
        if (*native) {
            Expected<NativeEvent> event = parseNativeEvent(line);
            ImportUnit unit;
            unit.place = place;
            unit.format = formats::native;
            if (event)
                unit.events.append(*event);
            else
                unit.rejection = event.message();
            if (!handOn(sink, std::move(unit)))
                break;
            continue;
        }
        if (jsonNestingDepth(line.constBegin(), line.constEnd()) > maxJsonNesting) {
            if (!handOn(sink, rejectedUnit(place, m_format, tooDeepReason())))
                break;
            continue;
        }
        json value;
        try {
            value = json::parse(line.constBegin(), line.constEnd());
        } catch (const json::exception &e) {
            const QString where = [&] {
                if (const auto *parse = dynamic_cast<const json::parse_error *>(&e))
                    return QStringLiteral("not valid JSON at column %1: ").arg(parse->byte);
                return QStringLiteral("not valid JSON: ");
            }();
            if (!handOn(sink, rejectedUnit(place, m_format, where + jsonParseErrorReason(e.what()))))
                break;
            continue;
        }
        if (!handOnValue(sink, value, place))
            break;
    }
    if (file.error() != QFileDevice::NoError)
        return makeError(QStringLiteral("reading stopped at line %1: %2").arg(m_linesRead).arg(file.errorString()));
    m_sha256 = QString::fromLatin1(hash.hexDigest());
    return {};
}

Expected<void> TranscriptReader::readDocument(QFile &file, const QByteArray &head, const Sink &sink, bool mayBeLines)
{
    // A top-level object streams the conversations of its "simulations" (τ²) or the batches of
    // its "resourceSpans" (OTLP), wherever they sit; a list streams its elements unless it is
    // one conversation's messages or items. Anything else is one conversation, read whole.
    const JsonShape shape = sniffJsonShape(head);
    const QStringList &keys = shape.firstElementKeys;
    const bool oneConversation = shape.isArray && (keys.contains(QStringLiteral("role"))
                                                   || keys.contains(QStringLiteral("type")));
    if (!oneConversation) {
        file.seek(0);
        Sha256Stream hash;
        const QStringList members = shape.isObject ? QStringList{QStringLiteral("simulations"),
                                                                 QStringLiteral("resourceSpans")}
                                                   : QStringList();
        JsonElementStream stream(file, members);
        stream.setHash(&hash);
        Expected<void> done = stream.run([&](json element, qint64 offset) {
            mayBeLines = false; // a conversation list was found: this is one document
            m_bytesRead = file.pos(); // read ahead by at most one buffer: fine for progress
            if (const json &stamp = stream.header(); stamp.contains("timestamp") && stamp.at("timestamp").is_string())
                m_fileTimestamp = fromUtf8String(stamp.at("timestamp").get<std::string>());
            const FilePlace place{0, offset};
            if (stream.member() == QLatin1String("resourceSpans"))
                return handOnValue(sink, json{{"resourceSpans", json::array({std::move(element)})}}, place);
            if (stream.member() == QLatin1String("simulations") && !element.is_object()) {
                return handOn(sink, rejectedUnit(place, formats::tau2,
                                                 QStringLiteral("expected a simulation object in \"simulations\", got %1")
                                                         .arg(QString::fromLatin1(element.type_name()))));
            }
            return handOnValue(sink, element, place);
        });
        m_bytesRead = stream.bytesRead();
        m_stopped = m_stopped || stream.stopped();
        if (!done && mayBeLines) {
            file.seek(0);
            return readLines(file, sink); // JSON Lines whose first line is long
        }
        if (!done)
            return done;
        if (!shape.isObject || !stream.member().isEmpty()) {
            m_sha256 = QString::fromLatin1(hash.hexDigest());
            return {};
        }
        // An object with no conversation list: it is one conversation. Read it again, whole.
        if (mayBeLines) {
            file.seek(0);
            return readLines(file, sink);
        }
    }

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
        return makeError(QStringLiteral("byte %1: not valid JSON: %2").arg(e.byte).arg(jsonParseErrorReason(e.what())));
    } catch (const json::exception &e) {
        return makeError(QStringLiteral("not valid JSON: %1").arg(jsonParseErrorReason(e.what())));
    }
    handOnValue(sink, value, FilePlace{0, 0});
    return {};
}

} // namespace verity
