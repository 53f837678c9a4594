#include "pickupwindow.h"

#include "domain/hiddencharacters.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace verity {

namespace {

const QString windowField = QStringLiteral("window");

// The JSON bodies of the answers an evidence response joins: each answer starts with its
// status line, and its body follows the blank line after its headers.
QList<QJsonObject> answerBodies(const QString &response)
{
    static const QRegularExpression statusLine(QStringLiteral("^HTTP \\d{3}"),
                                               QRegularExpression::MultilineOption);
    QList<qsizetype> starts;
    for (QRegularExpressionMatchIterator it = statusLine.globalMatch(response); it.hasNext();)
        starts.append(it.next().capturedStart());
    QList<QJsonObject> bodies;
    for (qsizetype i = 0; i < starts.size(); ++i) {
        const qsizetype end = i + 1 < starts.size() ? starts.at(i + 1) : response.size();
        const QString answer = response.mid(starts.at(i), end - starts.at(i));
        const qsizetype blank = answer.indexOf(QStringLiteral("\n\n"));
        if (blank < 0)
            continue;
        const QJsonDocument body = QJsonDocument::fromJson(answer.mid(blank + 2).trimmed().toUtf8());
        if (body.isObject())
            bodies.append(body.object());
    }
    return bodies;
}

// A window is a short line a customer can read; anything else a system sent is not quoted.
QString windowOf(const QJsonObject &object)
{
    const QString window = object.value(windowField).toString().trimmed();
    return window.size() <= 100 && !firstHiddenCharacter(window) ? window : QString();
}

} // namespace

QString pickupWindowOfRecord(const QString &evidenceResponse, const QString &recordId)
{
    if (recordId.isEmpty())
        return {};
    for (const QJsonObject &body : answerBodies(evidenceResponse)) {
        // A record read by id, or made by a write; else a page of a list.
        if (body.value(QStringLiteral("id")).toString() == recordId)
            return windowOf(body);
        const QJsonArray data = body.value(QStringLiteral("data")).toArray();
        for (const QJsonValue &item : data) {
            if (item.toObject().value(QStringLiteral("id")).toString() == recordId)
                return windowOf(item.toObject());
        }
    }
    return {};
}

QString pickupWindowInResult(const QString &rawResult)
{
    const QJsonDocument result = QJsonDocument::fromJson(rawResult.toUtf8());
    return result.isObject() ? windowOf(result.object()) : QString();
}

QString pickupWindow(const QList<Evidence> &evidence, const QList<ToolCallRow> &calls)
{
    // Newest first: a repeat's booking after the lookup that found none.
    for (auto it = evidence.crbegin(); it != evidence.crend(); ++it) {
        if (it->verdict != LookupVerdict::Found || it->kind == EvidenceKind::Attestation)
            continue;
        if (const QString window = pickupWindowOfRecord(it->response, it->recordId); !window.isEmpty())
            return window;
    }
    for (const ToolCallRow &call : calls) {
        if (const QString window = pickupWindowInResult(call.rawResult); !window.isEmpty())
            return window;
    }
    return {};
}

} // namespace verity
