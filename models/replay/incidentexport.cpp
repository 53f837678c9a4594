#include "incidentexport.h"
