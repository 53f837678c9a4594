#pragma once
// The id of the record a write's result names ({"refund_id": "re_…"}, {"pickup_id": …},
// {"id": …}): the record the tool itself says it made. Empty when the result names none.

#include <QString>

namespace verity {

QString recordIdInResult(const QString &rawResult);

} // namespace verity
