#pragma once
// A table read again while someone works in it (another console changed the data) keeps
// their place: the row they chose and the row at the top of the view, each found again by its
// id near where it was (a view at its top stays at the top, where new rows come in). A chosen row whose item
// is gone leaves no row chosen, never another item in its place: nothing is ever acted on that the person did
// not choose.

#include <functional>

class QTableView;

namespace verity {

// Runs `reset` (the model reads its rows again) and puts the view back where it was. Rows are
// matched by `idRole`; only rows near the old ones are read, so a large table costs a page.
void keepPlaceAcross(QTableView *view, int idRole, const std::function<void()> &reset);

} // namespace verity
