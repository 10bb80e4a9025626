package relational

// FinishUBOGraph exposes finishUBOGraph to the external tests.
var FinishUBOGraph = (*DB).finishUBOGraph
