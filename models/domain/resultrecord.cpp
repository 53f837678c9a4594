#include "resultrecord.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace verity {

QString recordIdInResult(const QString &rawResult)
{
    if (!rawResult.startsWith(u'{'))
        return {};
    const QJsonObject object = QJsonDocument::fromJson(rawResult.toUtf8()).object();
    for (const char *key : {"refund_id", "pickup_id", "message_id", "id"}) {
        const QString id = object.value(QLatin1String(key)).toString();
        if (!id.isEmpty())
            return id;
    }
    return {};
}

} // namespace verity
